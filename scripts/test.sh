#!/usr/bin/env bash
# Every test, as `make test` runs them: built once, then run in five groups
# at the same time, so that the tests that wait on a real X display (dwell,
# restarts, signals: mostly sleeping) do not wait for each other or for the
# tests that work the CPU. Each group's output is printed whole when it ends;
# the exit status is non-zero when any group failed.
#
# Groups: the hands-free tests in two halves (the window tests with the
# second), the desktop tests, the generated-video tests (tests/vision.rs),
# and the unit and doc tests with every other module of the integration
# tests. The integration tests are one binary (tests/all.rs), each file of
# tests/ a module, so a group is that binary run on the names of its
# modules (`vision::`), and the last group on every name the others do not
# take (--skip), so a new test file is never left out. Each X test has an
# Xvfb of its own, on a display number the server picks (tests/common), so
# the X tests may run side by side: the desktop tests do; within each half,
# the hands-free tests run one at a time.
#
# Usage: scripts/test.sh [CARGO]   (CARGO defaults to cargo)
set -uo pipefail
cargo=${1:-${CARGO:-cargo}}
cd "$(dirname "$0")/.."

"$cargo" test --release --no-run || exit 1

gui_a=(handsfree window)
gui_b=(desktop)
cpu=(vision)
# Each module's tests by name: `vision::` matches them and no other's.
modules() { for m in "$@"; do printf -- '%s::\n' "$m"; done; }
skipped() { for m in "$@"; do printf -- '--skip\n%s::\n' "$m"; done; }

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
group() {
    local name=$1; shift
    local t0; t0=$(date +%s)
    "$@" >"$logs/$name.log" 2>&1
    local rc=$?
    echo "$rc $(( $(date +%s) - t0 ))" >"$logs/$name.rc"
    echo "== tests: group $name ended (exit $rc) after $(( $(date +%s) - t0 )) s"
}
mapfile -t a < <(modules "${gui_a[@]}")
mapfile -t b < <(modules "${gui_b[@]}")
mapfile -t c < <(skipped "${gui_a[@]}" "${gui_b[@]}" "${cpu[@]}")
mapfile -t v < <(modules "${cpu[@]}")
# The hands-free tests play a scripted face against the wall clock, about
# 250 s in all, most of it waiting: alone they were the last group to end,
# two minutes after the others. They run in two halves of about the same
# length at the same time, each half one test at a time. The first half is
# named here (substrings of test names, as cargo test filters); the second
# is everything else, the same names skipped, so no test is left out or
# run twice.
first_half=(a_sentence_with the_menus_keyboard_types the_docked_menu the_keyboard_opens a_point_scanning_click)
first_half=("${first_half[@]/#/handsfree::}")
skips=(); for n in "${first_half[@]}"; do skips+=(--skip "$n"); done
group x-display-handsfree-1 "$cargo" test --release --test all -- --test-threads=1 "${first_half[@]}" &
group x-display-handsfree-2 "$cargo" test --release --test all -- --test-threads=1 "${a[@]}" "${skips[@]}" &
group x-display-desktop "$cargo" test --release --test all -- "${b[@]}" &
group vision "$cargo" test --release --test all -- "${v[@]}" &
group rest bash -c '"$0" test --release --lib --bins && "$0" test --release --test all -- "${@}" && "$0" test --release --doc' "$cargo" "${c[@]}" &
wait

names=(vision rest x-display-desktop x-display-handsfree-1 x-display-handsfree-2)
status=0
for name in "${names[@]}"; do
    echo
    echo "======== $name ========"
    cat "$logs/$name.log"
    read -r rc _ <"$logs/$name.rc" || rc=1
    [ "$rc" = 0 ] || status=1
done
echo
for name in "${names[@]}"; do
    read -r rc secs <"$logs/$name.rc" || { rc=?; secs=?; }
    echo "tests: $name: exit $rc, $secs s"
done
echo "tests: all groups: $(( $(date +%s) - start )) s, $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
