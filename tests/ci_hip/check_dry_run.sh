#!/usr/bin/env bash
# ci/hip --dry-run over this build, on a machine without an AMD card: the script must run every host-side step, end
# each hip step at its documented "no HIP device" exit 77, print each section of its summary and exit 77 (a dry run
# cannot say that the card-only comparisons hold). A failure names the missing piece.
#   check_dry_run.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -uo pipefail
src=$1 build=$2 out=$3
export TILEPROBE_FIXTURES=${TILEPROBE_FIXTURES:-$src/fixtures}
"$src/ci/hip" --dry-run --no-build --build-dir "$build" --out "$out" --runs 1 > "$out.log" 2>&1
rc=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ $rc -eq 77 ] || bad "ci/hip --dry-run exited $rc, expected 77 (see $out.log)"
s=$out/hip-summary.md
[ -f "$s" ] || { bad "no $s (see $out.log)"; exit 1; }
for probe in ck-idx-swap-xor ck-nibble-overcount ck-phantom-fallback fa-k00-combine-race fa-missing-tile-meta; do
  grep -qxF "| $probe | exit 0 | exit 77 (no HIP device) |" "$s" || bad "probe row for $probe is not 'exit 0 | exit 77 (no HIP device)'"
  [ -f "$out/$probe.cpu.json" ] || bad "no cpu JSON report for $probe"
done
sha=$(sha256sum "$out/swmmac-sweep.predicted.table" 2>/dev/null | cut -d' ' -f1)
[ -n "$sha" ] && grep -qF "sha256 \`$sha\`" "$s" || bad "the pre-registered table's SHA-256 is not in the summary"
grep -qF "$sha" "$out/swmmac-sweep.predict.log" || bad "swmmac-sweep --predict did not print the table's SHA-256"
for line in "## Machine" "## Pre-registered SWMMAC pairing table" "isa-differential on cpu (exit 0)" \
            "isa-differential on hip (exit 77)" "swmmac-sweep on cpu (exit 0): the software op's table equals the pre-registered one" \
            "swmmac-sweep on hip: exit 77 (no HIP device)" \
            "## fa-k00-combine-race failure rate on hip" "| upstream | not run (no HIP device) |" \
            "not made without a card: \`tileprobe-report --compare-backends cpu,hip\`" \
            "every expectation checked holds (host-side steps only: no card)"; do
  grep -qF -- "$line" "$s" || bad "summary lacks '$line'"
done
[ -s "$out/hip-report.md" ] || bad "no merged report hip-report.md"
grep -q 'BROKEN' "$s" && bad "the summary reports a problem: $(grep -m1 'BROKEN' "$s")"
[ $fail -eq 0 ] && echo "ci/hip dry run: every host-side section present, exit 77 as documented"
exit $fail
