#!/usr/bin/env bash
# The real talking check set of docs/accuracy.md (sixteenth session): public
# example clips of people talking, from three research repositories, made
# into sequences in the development data's format. None of it is shipped or
# committed (the clips are not ours to give); this script makes it again on
# a machine that has the repositories' snapshots.
#
#   scripts/talk-set.sh make MIRRORS PEER_PYTHON PEER_MODEL [OUT]
#       MIRRORS: a folder with the git snapshots OWNER+NAME/repo of
#       OpenTalker/SadTalker, OpenTalker/video-retalking,
#       Hangz-nju-cuhk/Talking-Face_PC-AVS and KwaiVGI/LivePortrait (the
#       search tool's `fetch` puts them in /work/.mirror); PEER_PYTHON and
#       PEER_MODEL as for scripts/peer-label.py. OUT defaults to /tmp/talkset.
#   scripts/talk-set.sh eval BIN [OUT] [PROFILE]
#       each set's group rows, then every event other than a blink.
#
# Sets (each clip scaled so that the eyes are about 65 px apart, as a
# webcam at arm's length sees them):
#   A     talk: 11 clips of 10 people (HDTF interviews in SadTalker's and
#         video-retalking's examples, 25-30 fps); blinks labelled by hand,
#         frame by frame; vox: 11 VoxCeleb interview clips of 11 people
#         (PC-AVS's examples, 224x224, 25 fps); blinks from the peer's
#         score, checked by eye on three clips only (rough).
#   B     the same at eyes 36 px apart (talk) and 160x160 (vox)
#   slow  A at a third of the frame rate, and at a quarter and 0.7 of the size
#   mv    A moved as a talking head moves, and compressed (JPEG 40)
#   L     15 clips of 15 people making faces and talking (LivePortrait's
#         driving examples; no labels: only what acts is looked at)
# Nobody in them means a brow raise: brows_raised is 0 throughout, and every
# raise, long blink, wink or click is a false action.
set -euo pipefail
abs() { realpath -m -- "$1"; }
mode=${1:-}
case "$mode" in
make)
    mirrors=$(abs "${2:?usage: talk-set.sh make MIRRORS PEER_PYTHON PEER_MODEL [OUT]}")
    py=${3:?PEER_PYTHON}; model=$(abs "${4:?PEER_MODEL}"); out=$(abs "${5:-/tmp/talkset}")
    cd "$(dirname "$0")/.."
    B=target/release/facemouse
    [ -x "$B" ] || { echo "talk-set: build first (cargo build --release)" >&2; exit 1; }
    command -v ffmpeg >/dev/null || { echo "talk-set: ffmpeg is not installed: it copies the clips into the development data's format (apt-get install ffmpeg)" >&2; exit 1; }
    src=$out/src; mkdir -p "$src"
    grab() { # repo commit path name
        git -C "$mirrors/$1/repo" show "$2:$3" >"$src/$4.mp4" </dev/null
    }
    st=OpenTalker+SadTalker; vr=OpenTalker+video-retalking; pc=Hangz-nju-cuhk+Talking-Face_PC-AVS; lp=KwaiVGI+LivePortrait
    for n in AlexandriaOcasioCortez KatieHill; do grab $st cd4c0465ae0b54a6f85af57f5c65fec9fe23e7f8 "examples/ref_video/WDA_${n}_000.mp4" "WDA_${n}_000"; done
    for n in RD_Radio2_000 RD_Radio34_000 WDA_BobMenendez_000 WDA_EdMarkey0_000; do grab $st 68651ebaa6fedad57ca9c878221f9b57212040cb "test/examples/source_image/$n.mp4" "$n"; done
    for i in 1 2 3 4 5; do grab $vr 6f584bd6e761fc20331c886b6afc8180fd9ee547 "examples/face/$i.mp4" "vr$i"; done
    for p in Audio_Source/00015 Pose_Source/00067 Audio_Source/00086 Input/00098 Audio_Source/00104 Pose_Source/00473 \
        Pose_Source/517600055 Pose_Source/620900105 Audio_Source/681100216 Pose_Source/741400163 Pose_Source/796100172; do
        grab $pc 14736e3a236b1e3b39ff8302ae66a1abc4876a49 "misc/$p.mp4" "pcavs-${p#*/}"
    done
    for d in d0 d3 d6 d9 d10 d11 d12 d13 d14 d18 d19 d20; do grab $lp 46e8bbcf9bcbd01958c99b9710c8cbd7f7aaad82 "assets/examples/driving/$d.mp4" "lp-$d"; done
    for d in d5 d7 d8; do grab $lp 21e78909ed23227a35ed5e604a69bb13c3844bb7 "assets/examples/driving/$d.mp4" "lp-$d"; done
    label() { scripts/peer-label.py "$py" "$model" "$@" </dev/null | grep -v '^[WI]0000' || true; }
    # The eye distance of a clip at its own size (median over its frames, by the peer).
    iod() {
        label "$src/$1.mp4" "$out/orig/$1" >/dev/null
        python3 - "$out/orig/$1/labels.csv" <<'PY'
import csv, math, sys
r = list(csv.DictReader(open(sys.argv[1])))
v = sorted(math.dist((float(x["le_x"]), float(x["le_y"])), (float(x["re_x"]), float(x["re_y"]))) for x in r if x["le_x"])
print(v[len(v) // 2])
PY
    }
    # Scaled so that the eyes are TARGET px apart (even sizes, as codecs want).
    scaled() { # name target
        local d w h
        d=$(iod "$1")
        read -r w h < <(python3 -c "import json; m = json.load(open('$out/orig/$1/meta.json')); print(m['width'], m['height'])")
        python3 -c "f = $2 / $d; print(f'scale={int(round($w * f / 2)) * 2}:{int(round($h * f / 2)) * 2}')"
    }
    # Blinks by hand (inclusive frame ranges), from montages of the eyes.
    while read -r n closed; do
        label "$src/$n.mp4" "$out/A/talk-$n" --person talk --closed "$closed" --vf "$(scaled "$n" 65)" --source "public talking-head clip ($n)" --license "development only, not redistributed"
        label "$src/$n.mp4" "$out/B/talk-$n" --person talk --closed "$closed" --vf "$(scaled "$n" 36)" --source "public talking-head clip ($n)" --license "development only, not redistributed"
    done <<'EOF'
WDA_AlexandriaOcasioCortez_000 10-12,34-36,56-58,80-82,97-98,110-111,129-130,150-151,177-178
WDA_KatieHill_000 24-25,32-35,112-114,171-173
RD_Radio2_000 44-46,54-55
RD_Radio34_000 -
WDA_BobMenendez_000 39-40,153-155
WDA_EdMarkey0_000 126-127
vr1 81-83
vr2 -
vr3 12-13,28,36-37,58-59,82-83,99-100,112-113
vr4 22-23,27-29,56-57,64-67,92-94,102-103
vr5 9-11,15-17
EOF
    # Blinks: runs of the peer's score over 0.45, one clip's look-down read by eye (rough).
    while read -r n closed; do
        label "$src/$n.mp4" "$out/A/talk-$n" --person vox --closed "$closed" --source "public VoxCeleb clip ($n)" --license "development only, not redistributed"
        label "$src/$n.mp4" "$out/B/talk-$n" --person vox --closed "$closed" --vf scale=160:160 --source "public VoxCeleb clip ($n)" --license "development only, not redistributed"
    done <<'EOF'
pcavs-00015 -
pcavs-00067 -
pcavs-00086 0-8,31-33
pcavs-00098 -
pcavs-00104 9-12,34-38,107-109,187-191,239-248,276-282
pcavs-00473 9-10,25-29,57-59,87-90,132-135
pcavs-517600055 44-45,49-50,85-88,91-93
pcavs-620900105 47-54
pcavs-681100216 213-214
pcavs-741400163 262-269
pcavs-796100172 27-30,97-99,147-152
EOF
    for d in d0 d3 d5 d6 d7 d8 d9 d10 d11 d12 d13 d14 d18 d19 d20; do
        label "$src/lp-$d.mp4" "$out/L/lp-$d" --person lp --vf "$(scaled "lp-$d" 65)" --source "public expression clip (lp-$d)" --license "development only, not redistributed"
    done
    for s in "$out"/A/*; do
        n=$(basename "$s")
        "$B" resample "$s" --every 3 --out "$out/slow/$n-e3" >/dev/null
        "$B" resample "$s" --every 4 --scale 0.7 --out "$out/slow/$n-e4s" >/dev/null
        "$B" resample "$s" --jpeg 40 --move 7 --out "$out/mv/$n-mv" >/dev/null
    done
    echo "talk-set: made in $out"
    ;;
eval)
    B=$(abs "${2:?usage: talk-set.sh eval BIN [OUT] [PROFILE]}"); out=$(abs "${3:-/tmp/talkset}"); profile=${4:-default}
    traces=$(mktemp -d)
    trap 'rm -rf "$traces"' EXIT
    for s in A B slow mv L; do
        mkdir -p "$traces/$s"
        "$B" eval --profile "$profile" "$out/$s"/* --trace-dir "$traces/$s" 2>/dev/null | grep '^| \*\*' | sed -E "s/\| worst [0-9]+\/[0-9]+ \|\$//; s/^/$s /"
    done
    "$(dirname "$0")/set-events.py" "$traces" --skip blink,init,lost A B slow mv L
    ;;
*)
    sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
