# The fa probes' own bad-input classes, sourced by tests/probes_common/check_bad_input.sh (expect, $probe, $tmp).
name=$(basename "$probe"); name=${name#probe-}
# Probe options, out of range or malformed (CLI11 checks; every numeric option says its range in --help).
expect 2 "--ladder-max-kv" -- --ladder-max-kv 100
expect 2 "--ladder-max-kv" -- --ladder-max-kv -1
if [ "$name" = fa-missing-tile-meta ]; then
  expect 2 "--cus" -- --cus 0
  expect 2 "--cus" -- --cus -1
  expect 2 "--cus" -- --cus 4097
  expect 2 "--occupancy" -- --occupancy 65
  expect 2 "--meta-init" -- --meta-init later
fi
# A fixture directory that is not there (the fixture cases read fa-q, fa-k, fa-v).
expect 2 "cannot be opened" TILEPROBE_FIXTURES=/nonexistent --
# --input bodies: each malformed record names FILE:LINE.
body() { printf 'tileprobe-input v1\nprobe %s\n' "$name"; printf '%s\n' "$@"; }
sched=(); [ "$name" = fa-k00-combine-race ] && sched=("schedule adversarial")
good=("config rdna-d256-ncols32" "kernel kvarn-kvarn" "nq 32" "nkv 128" "tail 4" "heads 1" "device 1 1" "data random 1")
body "config nope" >"$tmp/i1.tpin";                         expect 2 "i1.tpin:3: unknown config 'nope'" -- --input "$tmp/i1.tpin"
body "config rdna-d256-ncols32" "kernel bf16" >"$tmp/i2.tpin"; expect 2 "i2.tpin:4: kernel must be" -- --input "$tmp/i2.tpin"
body "${good[@]:0:2}" "nq 0" >"$tmp/i3.tpin";                expect 2 "i3.tpin:5:" -- --input "$tmp/i3.tpin"
body "${good[@]:0:6}" "gqa 6 3" >"$tmp/i4.tpin";             expect 2 "i4.tpin:9: ncols2 3 does not divide" -- --input "$tmp/i4.tpin"
body "${good[@]:0:7}" "mask causal" >"$tmp/i5.tpin";         expect 2 "i5.tpin:10: the model has no attention mask" -- --input "$tmp/i5.tpin"
body "${good[@]:0:7}" "data random" >"$tmp/i6.tpin";         expect 2 "i6.tpin:10: 'data random' needs a seed" -- --input "$tmp/i6.tpin"
body "${good[@]:0:7}" "data given" "q 0 0 1" >"$tmp/i7.tpin"; expect 2 "i7.tpin:11:" -- --input "$tmp/i7.tpin"
body "${good[@]:0:7}" "data random 1 qgain 0" >"$tmp/i8.tpin"; expect 2 "i8.tpin:10: qgain must lie in" -- --input "$tmp/i8.tpin"
body "${good[@]:0:7}" "data random 1 records 7 1" >"$tmp/i12.tpin"; expect 2 "i12.tpin:10: records BITS must be 2, 3, 4, 5, 6 or 8" -- --input "$tmp/i12.tpin"
body "${good[@]:0:7}" "data random 1 records 4" >"$tmp/i13.tpin"; expect 2 "i13.tpin:10: 'records' needs BITS and TAIL" -- --input "$tmp/i13.tpin"
body "${good[@]}" >"$tmp/i9.tpin"
if [ "$name" = fa-k00-combine-race ]; then
  expect 2 "i9.tpin:11: missing 'schedule' record" -- --input "$tmp/i9.tpin"
  body "${good[@]}" "schedule random" >"$tmp/i10.tpin";      expect 2 "i10.tpin:11:" -- --input "$tmp/i10.tpin"
else
  body "${good[@]}" "schedule adversarial" >"$tmp/i10.tpin"; expect 2 "i10.tpin:11: this probe runs the in-order schedule" -- --input "$tmp/i10.tpin"
fi
body "${good[@]}" "${sched[@]}" "extra 1" >"$tmp/i11.tpin";   expect 2 "unexpected record 'extra'" -- --input "$tmp/i11.tpin"
