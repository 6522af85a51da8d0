#!/bin/sh
# A command that runs the tree variants' real kernels on the simulator, judged: its exit code must be one of EXPECT_RC
# (a comma list) and its output must match every PATTERN (grep -E). If instead it stopped at an instruction the
# simulator does not execute (exit 3, "unimplemented <mnemonic> in kernel ...") and NEEDED_INSTRUCTIONS_TXT lists that
# instruction, the test cannot run here: exit 77 naming it (skipped, never passed). A stop at an unlisted instruction
# fails: the list is stale.
#   on_sim.sh NEEDED_INSTRUCTIONS_TXT EXPECT_RC[,RC...] [PATTERN ...] -- COMMAND [ARGS ...]
set -u
list=$1 want=$2
shift 2
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  patterns="$patterns$1
"
  shift
done
[ $# -gt 1 ] || { echo "usage: on_sim.sh NEEDED_INSTRUCTIONS_TXT EXPECT_RC[,RC...] [PATTERN ...] -- COMMAND [ARGS ...]"; exit 2; }
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
case ",$want," in
  *",$rc,"*) expected=yes ;;
  *) expected=no ;;
esac
m=$(printf '%s\n' "$out" | sed -n 's/.*unimplemented \([a-z0-9_]*\) in kernel .*/\1/p' | head -1)
if [ -n "$m" ] && [ $expected = no ]; then
  # The list's lines name the mnemonic after the decoder's reason ("unimplemented modifier op_sel:[0,0,1] of X").
  if grep -Eq "^unimplemented (.* )?$m( |\$)" "$list"; then
    echo "skipped: the simulator does not execute $m ($list lists it); the run stopped there (exit $rc)"
    exit 77
  fi
  echo "FAIL: stopped at $m, which $list does not list"
  exit 1
fi
[ "$rc" = 77 ] && exit 77
if [ $expected = no ]; then
  echo "FAIL: exit $rc, expected $want"
  exit 1
fi
fail=0
printf '%s' "$patterns" | while IFS= read -r p; do
  [ -z "$p" ] && continue
  printf '%s\n' "$out" | grep -Eq -- "$p" || { echo "FAIL: no output line matches: $p"; exit 1; }
done || fail=1
[ $fail = 0 ] || exit 1
echo "ok: exit $rc${patterns:+, every pattern found}"
