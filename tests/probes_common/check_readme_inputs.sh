#!/usr/bin/env bash
# A probe README's input examples are the documentation of record: every fenced block that starts with
# `tileprobe-input v1` is run with --input; it must exit 0 (fail-pass: fixed passes) with the buggy variant failing
# the case (the example shows the bug). Usage: check_readme_inputs.sh PROBE README.md
set -u
probe=$1 readme=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^```/ { if (inside) { inside = 0; if (file) close(file); file = "" } else { inside = 1; first = 1 } next }
  inside && first { first = 0; if ($0 == "tileprobe-input v1") { n++; file = dir "/example" n ".tpin" } }
  inside && file { print > file }
' "$readme"
status=0 n=0
for f in "$tmp"/example*.tpin; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  "$probe" --input "$f" --report json --out "$tmp/r.json" >/dev/null 2>"$tmp/err"
  rc=$?
  verdict=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
buggy = [v["name"] for v in r["variants"] if v["role"] == "buggy"]
c = r["cases"]
if len(c) != 1: print("cases: %d" % len(c))
elif not all(b in c[0]["failed_on"] for b in buggy): print("%s passes on %s" % (c[0]["id"], buggy))
else: print("ok %s fails on %s" % (c[0]["id"], ",".join(c[0]["failed_on"])))
' "$tmp/r.json" 2>&1)
  echo "${f##*/}: exit $rc, $verdict"
  [ "$rc" = 0 ] && [ "${verdict#ok }" != "$verdict" ] || { status=1; cat "$tmp/err"; }
done
[ $n -gt 0 ] || { echo "no tileprobe-input example in $readme"; exit 1; }
exit $status
