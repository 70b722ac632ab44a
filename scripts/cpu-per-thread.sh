#!/bin/sh
# CPU per thread of process PID over SECONDS, as % of one core, busiest first.
# Usage: scripts/cpu-per-thread.sh PID [SECONDS]
pid=$1; secs=${2:-20}
hz=$(getconf CLK_TCK)
snap() { for t in /proc/$pid/task/*; do
  [ -r "$t/stat" ] || continue
  # comm may contain spaces: take the fields after the closing parenthesis.
  s=$(cat "$t/stat" 2>/dev/null) || continue
  name=$(cat "$t/comm" 2>/dev/null)
  rest=${s##*) }
  set -- $rest
  echo "$(basename $t) $((${12} + ${13})) $name"
done; }
snap > /tmp/cpt.$$.a; sleep "$secs"; snap > /tmp/cpt.$$.b
awk -v hz="$hz" -v secs="$secs" '
  NR==FNR { a[$1]=$2; next }
  { n=$3; for (i=4;i<=NF;i++) n=n" "$i; d=$2-(($1 in a)?a[$1]:0); p=100*d/hz/secs; tot+=p; if (p>=0.5) printf "%.1f\t%s\n", p, n }
  END { printf "%.1f\t%s\n", tot, "= whole process" }' /tmp/cpt.$$.a /tmp/cpt.$$.b |
  sort -t"$(printf '\t')" -k1,1 -rn | awk -F'\t' '{ printf "  %-20s %5.1f %%\n", $2, $1 }'
rm -f /tmp/cpt.$$.a /tmp/cpt.$$.b
