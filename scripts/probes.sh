#!/bin/bash
# Re-runs the probes of issue 13 ("Nothing lost, nothing stray") against the
# release binary: broken settings and values, a named pipe, a trace onto its
# input, closed and full standard output, unbounded synth arguments. Each
# prints the one line the user gets. Run from the repository root after
# `cargo build --release`: scripts/probes.sh
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
F=$ROOT/target/release/facemouse
D=$(mktemp -d); export FACEMOUSE_CONFIG_DIR=$D/cfg
CLIP=$ROOT/assets/demo/clip/video.avi
p() { echo "--- $1"; }
# 1 non-UTF-8 settings
mkdir -p $D/cfg/profiles/default/menus; cp $ROOT/menus/*.toml $D/cfg/profiles/default/menus/
printf '[ui]\n# gr\xfc\xdfe\nzoom = 2.0\n' > $D/cfg/profiles/default/settings.toml
p "1 Latin-1 settings.toml (headless: named, defaults used, the file left as it is)"
timeout 20 $F --headless --once --source $CLIP 2>&1 | grep -i "settings\|utf\|frames" | head -3
ls $D/cfg/profiles/default/ | tr '\n' ' '; echo
rm -rf $D/cfg
p "2 broken browser.toml: covered by menus::tests (per-file load, .bak) and tests/fuzz.rs"
# 3 values
for v in 'range = {left=-inf, right=inf, top=-0.1, bottom=0.1}' ; do
  rm -rf $D/cfg3; mkdir -p $D/cfg3/profiles/p3; printf "[pointer]\n$v\n" > $D/cfg3/profiles/p3/settings.toml
  p "3 [pointer] $v"; FACEMOUSE_CONFIG_DIR=$D/cfg3 $F --profile p3 replay $CLIP 2>&1 | head -1; done
rm -rf $D/cfg3; mkdir -p $D/cfg3/profiles/p3; printf "[vision]\nfeature = {picked = {dx = nan, dy = nan}}\n" > $D/cfg3/profiles/p3/settings.toml
p "3 picked nan"; FACEMOUSE_CONFIG_DIR=$D/cfg3 $F --profile p3 replay $CLIP 2>&1 | head -1
printf "[ui]\nzoom = nan\n" > $D/cfg3/profiles/p3/settings.toml
p "3 zoom nan"; FACEMOUSE_CONFIG_DIR=$D/cfg3 $F --profile p3 replay $CLIP 2>&1 | head -1
printf "[switch]\nwink_left = {key = \"ctrl+nosuchkey\"}\n" > $D/cfg3/profiles/p3/settings.toml
p "3 ctrl+nosuchkey"; FACEMOUSE_CONFIG_DIR=$D/cfg3 $F --profile p3 replay $CLIP 2>&1 | head -1
# 4 fifo
mkfifo $D/fifo.avi; p "4 replay fifo.avi"; timeout 10 $F replay $D/fifo.avi 2>&1 | head -1; echo "exit ${PIPESTATUS[0]}"
# 5 trace
cp $CLIP $D/v.avi; p "5 --trace onto the input"; $F replay $D/v.avi --trace $D/v.avi 2>&1 | head -1; echo "video bytes $(stat -c %s $D/v.avi) (was $(stat -c %s $CLIP))"
echo notes > $D/notes.txt; p "5 missing input, --trace notes.txt"; $F replay $D/missing.avi --trace $D/notes.txt 2>&1 | head -1; echo "notes.txt: $(cat $D/notes.txt)"
# 6 stdout
p "6 --headless | head -2"; timeout 20 $F --headless --source $CLIP 2>&1 | head -2; echo "exit ${PIPESTATUS[0]}"
p "6 > /dev/full"; timeout 20 $F --headless --once --source $CLIP > /dev/full; echo "exit $?"
# 10 synth
p "10 synth --seconds inf"; $F synth --out $D/s --seconds inf 2>&1 | head -1; echo "exit ${PIPESTATUS[0]}"
rm -rf $D
