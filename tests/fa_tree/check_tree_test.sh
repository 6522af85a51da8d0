#!/bin/sh
# Configure's tree check (kernels/fattn_tree/check_tree.cmake, the code configure runs) on doctored copies of a real
# tree in a temporary folder: the intact copy passes; a copy without a needed file, and one whose tail-merge kernel is
# renamed, each stop with exactly one message line, naming the file or the kernel.
#   check_tree_test.sh CMAKE CHECK_TREE_CMAKE TREE
set -eu
cmake=$1 check=$2 tree=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/ggml/src"
cp -r "$tree/ggml/include" "$tmp/t/ggml/"
cp -r "$tree/ggml/src/ggml-cuda" "$tmp/t/ggml/src/"

configure() { "$cmake" -DROOT="$tmp/t" -DWHAT=TP_FA_ROOT -P "$check" >"$tmp/out" 2>&1; }
# The message lines of a CMake error: the lines indented under "CMake Error at ...", before the call stack.
message_lines() { sed -n '/^CMake Error at/,/^Call Stack/p' "$tmp/out" | grep '^  ' || true; }
expect_stop() {  # $1: what the one line must say
  if configure; then echo "FAIL: the check passed on a tree with $1 missing"; cat "$tmp/out"; exit 1; fi
  n=$(message_lines | wc -l)
  if [ "$n" != 1 ] || ! message_lines | grep -qF "$1"; then
    echo "FAIL: expected one line naming '$1', got $n:"; cat "$tmp/out"; exit 1
  fi
  echo "ok: one line: $(message_lines | sed 's/^ *//')"
}

configure || { echo "FAIL: the intact copy of $tree does not pass"; cat "$tmp/out"; exit 1; }
echo "ok: the intact copy passes"
mv "$tmp/t/ggml/src/ggml-cuda/fattn-tail.cuh" "$tmp/fattn-tail.cuh"
expect_stop "has no ggml/src/ggml-cuda/fattn-tail.cuh"
sed 's/k_flash_attn_ext_tail_partials_merge/k_renamed_merge/g' "$tmp/fattn-tail.cuh" >"$tmp/t/ggml/src/ggml-cuda/fattn-tail.cuh"
expect_stop "has no kernel k_flash_attn_ext_tail_partials_merge"
