#!/bin/sh
# A tree variant's real kernels on the simulator: the case either runs to a verdict (exit 0 or 1: every instruction it
# reached was executed; whether the verdict is right is the differential's question), or stops at an instruction the
# simulator does not execute (exit 3, the simulator naming mnemonic, kernel and PC), which needed-instructions.txt must
# list. A stop at an unlisted instruction, or any other failure, fails.
#   run_to_listed_instruction.sh NEEDED_INSTRUCTIONS_TXT CASE_TOOL CASE_ARGS...
set -u
list=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc = 0 ] || [ $rc = 1 ]; then
  echo "ok: the case ran to a verdict on the simulator (exit $rc)"
  exit 0
fi
[ $rc = 77 ] && exit 77
m=$(printf '%s\n' "$out" | sed -n 's/.*unimplemented \([a-z0-9_]*\) in kernel.*/\1/p' | head -1)
if [ $rc != 3 ] || [ -z "$m" ]; then
  echo "FAIL: expected a verdict (exit 0 or 1) or a stop at an unimplemented instruction (exit 3), got exit $rc"
  exit 1
fi
if ! grep -q "^unimplemented .*\b$m\b" "$list"; then
  echo "FAIL: stopped at $m, which $list does not list"
  exit 1
fi
echo "ok: stopped at $m, which $list lists"
