#!/bin/sh
# The harness of a tree variant reads no CK header but the tree's sparse_transforms.hpp: every other ck_tile header
# comes from our shim. Recompiles the harness with clang -H (the flags configure used) and lists what it opened.
#   check_includes.sh CLANG FLAGS_FILE HARNESS_CPP TREE_COPY SHIM_DIR
set -eu
clang=$1 flags=$2 harness=$3 copy=$4 shim=$5
headers=$(xargs -d '\n' "$clang" -H -fsyntax-only "$harness" < "$flags" 2>&1 >/dev/null | sed -n 's/^\.\.* //p' | sort -u)
ck=$(printf '%s\n' "$headers" | grep 'ck_tile/' || true)
copy_real=$(realpath "$copy") shim_real=$(realpath "$shim")
bad=0 seen=0
for h in $ck; do
  r=$(realpath "$h")
  if [ "$r" = "$copy_real" ]; then seen=1; continue; fi
  case $r in "$shim_real"/*) continue ;; esac
  echo "not from the shim: $h"; bad=1
done
n=$(printf '%s\n' "$ck" | grep -c . || true)
echo "$n ck_tile headers read: the tree's sparse_transforms.hpp ($seen) and $((n - seen)) from $shim"
[ "$seen" = 1 ] || { echo "the tree's sparse_transforms.hpp ($copy) was not read at all"; exit 1; }
exit $bad
