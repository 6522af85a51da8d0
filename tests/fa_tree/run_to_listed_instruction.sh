#!/bin/sh
# A tree variant's real kernels on the simulator, until its first unimplemented instruction: the case must stop there
# (exit 3, the simulator naming mnemonic, kernel and PC), and needed-instructions.txt must list that mnemonic. When the
# simulator executes the whole case, this fails and asks to become a correctness test.
#   run_to_listed_instruction.sh NEEDED_INSTRUCTIONS_TXT CASE_TOOL CASE_ARGS...
set -u
list=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc = 0 ] || [ $rc = 1 ]; then
  echo "FAIL: the case ran to a verdict (exit $rc): the simulator executes it now; turn this into a correctness test"
  exit 1
fi
[ $rc = 77 ] && exit 77
m=$(printf '%s\n' "$out" | sed -n 's/.*unimplemented \([a-z0-9_]*\).*/\1/p' | head -1)
if [ $rc != 3 ] || [ -z "$m" ]; then
  echo "FAIL: expected a simulator stop at an unimplemented instruction (exit 3), got exit $rc"
  exit 1
fi
if ! grep -q "^unimplemented $m\b" "$list"; then
  echo "FAIL: stopped at $m, which $list does not list"
  exit 1
fi
echo "ok: stopped at $m, which $list lists"
