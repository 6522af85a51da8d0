#!/usr/bin/env bash
# The bad-input battery for one probe executable: every class of bad usage or bad input exits 2 with exactly one line
# on stderr naming the problem, nothing on stdout and no report written (nothing ran); a backend that is not built
# exits 77. Usage: check_bad_input.sh PROBE FIXTURES_DIR [FIXTURE_NAME [EXTRA]]
#   FIXTURE_NAME: a fixture the probe reads (enables the fixture-directory cases); empty for a probe without fixtures.
#   EXTRA: a bash file of the probe's own classes (more `expect` lines, with $tmp for scratch files), sourced last.
set -u
probe=$1 fixtures=$2 fixture=${3:-} extra=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect CODE MESSAGE-SUBSTRING [env VAR=VALUE ...] -- ARGS...
expect() {
  local want=$1 what=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  rm -f "$tmp/report.json"
  env "${envs[@]}" "$probe" "$@" --report json --out "$tmp/report.json" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  local bad=""
  [ "$rc" = "$want" ] || bad="exit $rc, expected $want"
  if [ "$want" = 2 ]; then
    [ "$lines" = 1 ] || bad="$bad; $lines lines on stderr, expected 1"
    [ -s "$tmp/out" ] && bad="$bad; stdout not empty"
    [ -e "$tmp/report.json" ] && bad="$bad; a report file was created"
  fi
  grep -qF -- "$what" "$tmp/err" || bad="$bad; stderr does not say '$what'"
  if [ -n "$bad" ]; then
    echo "FAIL [${envs[*]} $*]: $bad"; sed 's/^/    stderr: /' "$tmp/err" | head -3
    fails=$((fails + 1))
  else
    echo "ok   [${envs[*]} $*] -> $rc: $(head -c 160 "$tmp/err")"
  fi
}

# Unknown options and malformed values.
expect 2 "--no-such-option" -- --no-such-option
expect 2 "--backend 'tpu'" -- --backend tpu
expect 2 "--expect 'maybe'" -- --expect maybe
expect 2 "--variant 'nope'" -- --variant nope
expect 2 "--report 'pdf'" -- --report pdf
expect 2 "--case 'no-such-case' matches no case" -- --case no-such-case
# Every numeric option, out of range (CLI11 2.1.2 used to wrap -1 to 2^64-1).
expect 2 "--fuzz '-1'" -- --fuzz -1
expect 2 "--fuzz '1000000001'" -- --fuzz 1000000001
expect 2 "--fuzz '1e3'" -- --fuzz 1e3
expect 2 "--seed '-1'" -- --seed -1
expect 2 "--seed '0x10000000000000000'" -- --seed 0x10000000000000000
expect 2 "--jobs '0'" -- --jobs 0
expect 2 "--jobs '1025'" -- --jobs 1025
expect 2 "--batch '0'" -- --batch 0
expect 2 "--batch '16777217'" -- --batch 16777217
expect 2 "--shrink-budget '-3'" -- --shrink-budget -3
expect 2 "--shard '3/2'" -- --shard 3/2
expect 2 "--shard '0/2'" -- --shard 0/2
# Contradictory options.
expect 2 "contradict" -- --no-shrink --shrink-budget 5
expect 2 "--report does not include md" -- --out-md "$tmp/x.md"
printf 'tileprobe-input v1\nprobe x\n' >"$tmp/other.tpin"
expect 2 "contradict" -- --input "$tmp/other.tpin" --fuzz 5
# --input: a missing file, a directory, and malformed files (FILE:LINE: what).
expect 2 "cannot open" -- --input "$tmp/none.tpin"
expect 2 "cannot open" -- --input "$tmp"
printf 'not an input file\n' >"$tmp/bad1.tpin"
expect 2 "bad1.tpin:1: not a tileprobe input file" -- --input "$tmp/bad1.tpin"
printf 'tileprobe-input v2\nprobe x\n' >"$tmp/bad2.tpin"
expect 2 "bad2.tpin:1: format 'tileprobe-input v2' is not supported" -- --input "$tmp/bad2.tpin"
expect 2 "other.tpin:2: this file is for probe 'x'" -- --input "$tmp/other.tpin"
# A backend that is not built into this executable.
expect 77 "backend hip" -- --backend hip

if [ -n "$fixture" ]; then
  expect 2 "--fixture 'nope': no such fixture of this probe (known: " -- --fixture nope
  expect 2 "contradict" -- --fixture all --fixture "$fixture"
  # The fixture directory: missing, manifest unreadable or not JSON, a fixture file missing or corrupted.
  expect 2 "fixture manifest /nonexistent/MANIFEST.json cannot be opened" TILEPROBE_FIXTURES=/nonexistent --
  mkdir -p "$tmp/fx/data"
  printf '{"fixtures": [' >"$tmp/fx/MANIFEST.json"
  expect 2 "is not valid JSON" "TILEPROBE_FIXTURES=$tmp/fx" --
  chmod 000 "$tmp/fx/MANIFEST.json"
  if [ "$(id -u)" != 0 ]; then expect 2 "cannot be opened" "TILEPROBE_FIXTURES=$tmp/fx" --; fi
  chmod 644 "$tmp/fx/MANIFEST.json"
  cp "$fixtures/MANIFEST.json" "$tmp/fx/MANIFEST.json"
  cp "$fixtures"/data/*.bin "$tmp/fx/data/"
  rm "$tmp/fx/data/$fixture.bin"
  expect 2 "fixture '$fixture': file" "TILEPROBE_FIXTURES=$tmp/fx" --
  cp "$fixtures/data/$fixture.bin" "$tmp/fx/data/"
  printf '\x7f' | dd of="$tmp/fx/data/$fixture.bin" bs=1 seek=5 conv=notrunc 2>/dev/null
  expect 2 "checksum mismatch" "TILEPROBE_FIXTURES=$tmp/fx" --
  head -c 100 "$fixtures/data/$fixture.bin" >"$tmp/fx/data/$fixture.bin"
  expect 2 "wrong size" "TILEPROBE_FIXTURES=$tmp/fx" --
fi

if [ -n "$extra" ]; then . "$extra"; fi

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "every check passed"
