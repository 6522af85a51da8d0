#!/usr/bin/env bash
# Determinism: runs `PROBE ARGS` twice and requires byte-identical JSON reports apart from the timing lines
# ("seconds", "run_seconds", "cases_per_second": one per line in the report's layout), and identical counterexample
# input files. Usage: check_determinism.sh PROBE [ARGS...]
set -u
probe=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Both runs write to the same path (the report records its command line and the input files' paths), moved aside.
for n in 1 2; do
  mkdir "$tmp/run"
  "$probe" "$@" --report json --out "$tmp/run/report.json" >/dev/null 2>"$tmp/run/err"
  echo $? >"$tmp/run/rc"
  mv "$tmp/run" "$tmp/$n"
  [ -s "$tmp/$n/report.json" ] || { echo "run $n wrote no report (exit $(cat "$tmp/$n/rc")):"; cat "$tmp/$n/err"; exit 1; }
  grep -vE '^ *"(seconds|run_seconds|cases_per_second)": ' "$tmp/$n/report.json" >"$tmp/$n/untimed.json"
done
status=0
cmp -s "$tmp/1/rc" "$tmp/2/rc" || { echo "exit codes differ: $(cat "$tmp/1/rc") vs $(cat "$tmp/2/rc")"; status=1; }
if ! cmp -s "$tmp/1/untimed.json" "$tmp/2/untimed.json"; then
  echo "the two JSON reports differ beyond their timings:"
  diff "$tmp/1/untimed.json" "$tmp/2/untimed.json" | head -20
  status=1
fi
for f in "$tmp"/1/*.tpin; do
  [ -e "$f" ] || continue
  g="$tmp/2/${f##*/}"
  cmp -s "$f" "$g" || { echo "counterexample input ${f##*/} differs between the runs"; status=1; }
done
n=$(grep -c . "$tmp/1/untimed.json")
[ $status = 0 ] && echo "two runs, identical reports apart from timings ($n lines), exit $(cat "$tmp/1/rc")"
exit $status
