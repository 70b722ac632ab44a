#!/usr/bin/env bash
# The check sets of docs/accuracy.md, made again from the development clips
# in ../shared/data (not shipped: their licences forbid it), and each set
# evaluated per person group. For measuring a vision change on more than the
# development clips: run `eval` with the build before and after the change
# and compare the rows and the events.
#
#   scripts/check-sets.sh make [OUT]              make every set into OUT (default /tmp/cs): about 10 min on 2 cores
#   scripts/check-sets.sh eval BIN TRACES [OUT [ARGS...]]
#                                                 `BIN eval` on each set: its group rows (without the timing
#                                                 column), then every event other than a blink, per set;
#                                                 ARGS go to `eval` (e.g. --jitter 1 --jitter-seed 2)
#
# Sets: mv, mvB, mvC (moved as a talking head; mvC at half the frame rate and
# 0.6 of the size), lit (lit from behind), copies (slower and smaller), fresh
# (the seventh session's p1/p2 copies), drop, dropB (a quarter and 0.4 of
# the frames dropped at random, the rest at their own times), talk, talkB, talkC, talkD (generated
# talking; C and D with glasses), expr (generated expressive talking: brows
# that lift with speech as far as a meant raise, and raises meant in the
# pauses), gl (generated glasses), smile (generated smiles), plus the
# development clips themselves (dev). The real talking set is
# scripts/talk-set.sh.
set -euo pipefail
# Paths given are the caller's; the script works from the repository root.
abs() { realpath -m -- "$1"; }
args=()
# The mode and up to three paths; what follows OUT goes to `eval` as it is.
n=0
for a in "$@"; do
    n=$((n + 1))
    if [ $n -gt 4 ]; then args+=("$a"); continue; fi
    case "$a" in make | eval) args+=("$a") ;; *) args+=("$(abs "$a")") ;; esac
done
set -- "${args[@]}"
cd "$(dirname "$0")/.."
data=../shared/data
[ -d "$data" ] || { echo "check-sets: $data is not here (the development videos); nothing to do" >&2; exit 1; }
mode=${1:-}
case "$mode" in
make)
    B=target/release/facemouse
    [ -x "$B" ] || { echo "check-sets: build first (cargo build --release)" >&2; exit 1; }
    out=${2:-/tmp/cs}
    mkdir -p "$out"
    q() { "$B" "$@" >/dev/null; }
    f=(30 24 15 10 7.5); g=(25 20 12 8 6)
    for i in 1 2 3 4 5; do
        q synth --talking --seed $((100 + i)) --seconds 60 --fps "${f[$((i - 1))]}" --out "$out/talk/t$i"
        q synth --talking --seed $((200 + i)) --seconds 60 --fps "${g[$((i - 1))]}" --out "$out/talkB/u$i"
    done
    q synth --talking --seed 401 --seconds 90 --fps 24 --out "$out/talkC/c401-24"
    q synth --talking --glasses --seed 402 --seconds 60 --fps 20 --out "$out/talkC/c402-20g"
    q synth --talking --seed 405 --seconds 60 --fps 6 --out "$out/talkC/c405-6"
    for spec in "403 8" "404 12 --glasses" "406 30"; do
        set -- $spec
        q synth --talking ${3:-} --seed "$1" --seconds 60 --fps "$2" --out "$out/src/c$1"
        q resample "$out/src/c$1" --scale 0.5 --out "$out/talkC/c$1-$2${3:+g}-h"
    done
    q synth --talking --glasses --seed 501 --seconds 60 --fps 24 --out "$out/talkD/d501-24"
    q synth --talking --glasses --seed 502 --seconds 60 --fps 15 --out "$out/talkD/d502-15"
    q synth --talking --glasses --seed 503 --seconds 60 --fps 10 --out "$out/talkD/d503-10"
    for spec in "701 30" "702 24" "703 15" "704 10" "705 8" "706 20 --glasses"; do
        set -- $spec
        q synth --talking --expressive ${3:-} --seed "$1" --seconds 60 --fps "$2" --out "$out/expr/e$1-$2${3:+g}"
    done
    for s in 301 302 303; do q synth --glasses --seed $s --seconds 30 --out "$out/gl/g$s-30"; done
    q synth --glasses --talking --seed 304 --seconds 40 --fps 15 --out "$out/gl/t304-15"
    for spec in "601 24" "602 15" "603 30" "604 10" "606 8" "605 20 --glasses"; do
        set -- $spec
        q synth --talking --smiling ${3:-} --seed "$1" --seconds 60 --fps "$2" --out "$out/smile/s$1-$2"
    done
    i=0
    for s in "$data"/focus-* "$data"/zju/*; do
        i=$((i + 1)); n=$(basename "$s")
        q resample "$s" --out "$out/mv/$n-m$i" --move $i
        q resample "$s" --out "$out/mvB/$n-m$((100 + i))" --move $((100 + i))
        q resample "$s" --out "$out/mvC/$n-m$((200 + i))" --move $((200 + i)) --every 2 --scale 0.6
        q resample "$s" --out "$out/lit/$n-L$((400 + i))" --backlight $((400 + i))
        q resample "$s" --out "$out/drop/$n-d$((500 + i))" --drop 0.25 --drop-seed $((500 + i))
        q resample "$s" --out "$out/dropB/$n-D$((500 + i))" --drop 0.4 --drop-seed $((500 + i))
    done
    for s in "$data"/zju/*; do for e in 3 4 5; do q resample "$s" --out "$out/copies/$(basename "$s")-e$e" --every $e; done; done
    for s in "$data"/focus-*; do
        q resample "$s" --out "$out/copies/$(basename "$s")-e2" --every 2
        q resample "$s" --out "$out/copies/$(basename "$s")-small" --scale 0.5
    done
    for s in "$data"/focus-p1-*; do q resample "$s" --out "$out/copies/$(basename "$s")-e4" --every 4; done
    for s in focus-p1-a focus-p1-b; do q resample "$data/$s" --every 3 --scale 0.5 --out "$out/fresh/$s-e3s"; done
    for s in focus-p1-c focus-p2-a focus-p2-brows-b; do q resample "$data/$s" --every 2 --scale 0.5 --out "$out/fresh/$s-e2s"; done
    for s in focus-p1-a focus-p1-c focus-p2-a focus-p2-brows-b; do for sc in 0.4 0.6; do
        q resample "$data/$s" --scale $sc --out "$out/fresh/$s-s$sc"
        q resample "$data/$s" --every 2 --scale $sc --out "$out/fresh/$s-e2-s$sc"
    done; done
    rm -rf "$out/src"
    echo "check-sets: made in $out"
    ;;
eval)
    B=${2:?usage: check-sets.sh eval BIN TRACES [OUT [ARGS...]]}; traces=${3:?usage: check-sets.sh eval BIN TRACES [OUT [ARGS...]]}; out=${4:-/tmp/cs}
    extra=("${@:5}")
    for s in dev talk talkB talkC talkD expr gl smile mv mvB mvC lit copies fresh drop dropB; do
        if [ "$s" = dev ]; then set -- "$data"/focus-* "$data"/zju/*; else set -- "$out/$s"/*; fi
        rm -rf "${traces:?}/$s"; mkdir -p "$traces/$s"
        rows=$("$B" eval "$@" --trace-dir "$traces/$s" ${extra[@]+"${extra[@]}"} 2>/dev/null) || { echo "check-sets: $B eval failed on the set $s" >&2; exit 1; }
        grep '^| \*\*' <<<"$rows" | sed -E "s/\| worst [0-9]+\/[0-9]+ \|\$//; s/^/$s /"
    done
    scripts/set-events.py "$traces"
    ;;
*)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
