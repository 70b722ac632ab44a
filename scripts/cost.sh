#!/bin/sh
# What Facemouse costs: CPU per thread (% of one core) on the bundled demo
# clip, headless, with the window visible, and with the window minimized.
# The window runs under a private Xvfb with openbox and software OpenGL
# (llvmpipe), as on a machine without a GPU. Usage: scripts/cost.sh [SECONDS]
set -eu
secs=${1:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/target/release/facemouse"
clip="$here/assets/demo/clip/video.avi"
cpu="$here/scripts/cpu-per-thread.sh"
[ -x "$bin" ] || { echo "cost: build first (cargo build --release)"; exit 1; }
for t in Xvfb openbox xdotool; do command -v $t >/dev/null || { echo "cost: $t is missing (make deps installs it)"; exit 1; }; done
config=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$config"; }
trap cleanup EXIT INT TERM

echo "headless (facemouse --headless --source demo clip), $secs s:"
FACEMOUSE_CONFIG_DIR=$config "$bin" --headless --source "$clip" >/dev/null 2>&1 &
app=$!; pids="$pids $app"
sleep 3; "$cpu" $app "$secs"; kill $app; wait $app 2>/dev/null || true

d=:$(( 150 + $$ % 50 ))
Xvfb $d -screen 0 1280x800x24 -noreset -nolisten tcp >/dev/null 2>&1 &
pids="$pids $!"; sleep 1
DISPLAY=$d openbox >/dev/null 2>&1 &
pids="$pids $!"; sleep 1
DISPLAY=$d LIBGL_ALWAYS_SOFTWARE=1 FACEMOUSE_CONFIG_DIR=$config "$bin" --source "$clip" >/dev/null 2>&1 &
app=$!; pids="$pids $app"
sleep 5
echo "window visible (1280x800, maximized), $secs s:"
"$cpu" $app "$secs"
DISPLAY=$d xdotool search --sync --name '^Facemouse$' windowminimize
sleep 2
echo "window minimized, $secs s:"
"$cpu" $app "$secs"
