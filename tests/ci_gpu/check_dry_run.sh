#!/usr/bin/env bash
# ci/gpu --cpu-dry-run over this build: the evidence script must run every CPU-side step, print each section of its
# summary, and exit 77 (a dry run cannot say that the GPU-only steps hold). A failure names the missing piece.
#   check_dry_run.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -uo pipefail
src=$1 build=$2 out=$3
export TILEPROBE_FIXTURES=${TILEPROBE_FIXTURES:-$src/fixtures}
"$src/ci/gpu" --cpu-dry-run --no-build --build-dir "$build" --out "$out" --bench-fuzz 200 --runs 1 > "$out.log" 2>&1
rc=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ $rc -eq 77 ] || bad "ci/gpu --cpu-dry-run exited $rc, expected 77 (see $out.log)"
s=$out/gpu-summary.md
[ -f "$s" ] || { bad "no $s"; exit 1; }
for probe in ck-idx-swap-xor ck-nibble-overcount ck-phantom-fallback fa-k00-combine-race fa-missing-tile-meta; do
  grep -qxF "| $probe | exit 0 | exit 0 |" "$s" || bad "probe row for $probe is not 'exit 0 | exit 0'"
done
for line in "isa-differential on cpu (exit 0)" "isa-differential on cuda (exit 0)" \
            "swmmac-sweep: the tables measured on cpu and cuda are identical" \
            "## ck D-output digests" "## ck fuzz throughput" "ck kernels alone" \
            "every expectation checked holds"; do
  grep -qF -- "$line" "$s" || bad "summary lacks '$line'"
done
[ "$(grep -c ': equal (cpu d_digest=' "$s")" -ge 6 ] || bad "fewer than 6 equal ck digest lines"
[ "$(grep -c '  - bound (cpu run' "$s")" -eq 3 ] || bad "not one throughput bound line per ck probe"
grep -q 'DIFFER\|BROKEN\|no bench report' "$s" && bad "the summary reports a problem: $(grep -m1 'DIFFER\|BROKEN\|no bench report' "$s")"
[ $fail -eq 0 ] && echo "ci/gpu dry run: every CPU-side section present, exit 77 as documented"
exit $fail
