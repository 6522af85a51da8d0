#!/usr/bin/env bash
# The corpus through a real probe: each input file as --input, each manifest as TILEPROBE_FIXTURES/MANIFEST.json.
# A run ends 0 or 1 (accepted: the case ran, fail-pass verdict either way) or 2 with exactly one stderr line; no
# other exit (3 internal, a signal, a sanitizer abort) is allowed. Usage: replay_probe.sh PROBE CORPUS_DIR [INPUTS]
#   INPUTS: the corpus subdirectory of input files (default input); any other than `input` skips the manifests (the
#   fa probes' fixture runs are the whole default run, too long to repeat per manifest).
set -u
probe=$1 corpus=$2 inputs=${3:-input}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
check() {  # label, then the command
  local label=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  n=$((n + 1))
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ]; then return; fi
  if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then return; fi
  echo "FAIL $label: exit $rc, $lines stderr lines"; head -3 "$tmp/err"; bad=$((bad + 1))
}
for f in "$corpus/$inputs"/*; do check "${f##*/}" "$probe" --input "$f" --no-shrink; done
mkdir -p "$tmp/fx"
[ "$inputs" = input ] && for f in "$corpus"/manifest/*; do
  cp "$f" "$tmp/fx/MANIFEST.json"
  check "${f##*/}" env TILEPROBE_FIXTURES="$tmp/fx" "$probe" --fuzz 0 --no-shrink
done
echo "$n runs, $bad problem(s)"
[ $bad -eq 0 ]
