#!/usr/bin/env python3
"""kernels/fattn_tree/split_fix.py on a fix written here (no upstream text): changes grouped by the edit they make,
sub-patches that apply exactly with git apply, the guard hunk found, malformed input refused.

  split_fix_test.py SPLIT_FIX_PY GIT
"""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

# A made-up kernel file: three gated stores, a loop barrier, a guard, a tile loop.
BEFORE = """\
void store_a() {
    if (!gate_x && ready && ptr) {
        write_a();
    }
}

void store_b() {
    if (!gate_x && ready && ptr) {
        write_b();
    }
}

void loop() {
    for (int k = 0; k < n; k += step) {
        work(k);
        if (parts > 1) {
            sync();
        }
    }
}

void guard() {
    if (wide || DKQ > 128) {
        stub();
        return;
    }
}

void tiles() {
    while (left) {
        tile();

        advance();
    }
}
"""
AFTER = (BEFORE.replace("if (!gate_x && ready && ptr) {", "if (ready && ptr) {")
         .replace("if (parts > 1) {", "if (parts > 1 || k + step < n) {")
         .replace("DKQ > 128", "DKQ > 256")
         .replace("        tile();\n\n        advance();", "        tile();\n\n        sync();\n\n        advance();"))


def run(*cmd, cwd=None, ok=(0,)):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"FAIL: {' '.join(cmd)} -> {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
    print("ok: " + what)


def main():
    split, git = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as t:
        fix = os.path.join(t, "fix.patch")
        diff = "".join(difflib.unified_diff(BEFORE.splitlines(True), AFTER.splitlines(True), "a/k.cuh", "b/k.cuh", n=2))
        with open(fix, "w") as f:
            f.write(diff)

        changes = run(sys.executable, split, "list", fix).stdout.splitlines()
        check(len(changes) == 4, f"four changes from five hunks (got {changes})")
        check(changes[0].split("\t")[1] == "2", "the two identical gate removals are one change of two hunks")
        check("`! gate_x &&` -> `nothing`" in changes[0], "change 1 is described by its tokens")
        check("`128` -> `256`" in changes[2], "change 3 is the guard")

        def applied(patch):
            work = os.path.join(t, "work")
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            with open(os.path.join(work, "k.cuh"), "w") as f:
                f.write(BEFORE)
            env = dict(os.environ, GIT_CEILING_DIRECTORIES=t)
            r = subprocess.run([git, "apply", patch], cwd=work, env=env, capture_output=True,
                               text=True)
            if r.returncode != 0:
                sys.exit(f"FAIL: {patch} does not apply:\n{r.stderr}")
            with open(os.path.join(work, "k.cuh")) as f:
                return f.read()

        for n in range(1, 5):
            out = os.path.join(t, f"minus-{n}.patch")
            run(sys.executable, split, "without", str(n), fix, out)
            text = applied(out)
            kept = {1: "if (!gate_x && ready && ptr)", 2: "if (parts > 1) {", 3: "DKQ > 128",
                    4: "tile();\n\n        advance();"}[n]
            check(kept in text and text != BEFORE, f"without change {n}: that edit alone is left out, the others applied")
        full = os.path.join(t, "minus-none.patch")
        with open(full, "w") as f:
            f.write(diff)
        check(applied(full) == AFTER, "the whole fix applied gives the fixed file")

        guard = os.path.join(t, "guard.patch")
        run(sys.executable, split, "only-guard", fix, guard)
        g = applied(guard)
        check("DKQ > 256" in g and "gate_x" in g and "sync();\n\n        advance" not in g,
              "only-guard holds the guard hunk and nothing else")

        r = run(sys.executable, split, "only-guard", os.path.join(t, "minus-3.patch"), guard, ok=(3,))
        check(r.returncode == 3, "a fix without a guard hunk: only-guard exits 3")
        bad = os.path.join(t, "bad.patch")
        with open(bad, "w") as f:
            f.write("--- a/k.cuh\n+++ b/k.cuh\n@@ garbage @@\n")
        r = run(sys.executable, split, "list", bad, ok=(2,))
        check("malformed hunk header" in r.stderr, "a malformed patch: exit 2 naming the problem")
        r = run(sys.executable, split, "list", os.path.join(t, "missing.patch"), ok=(2,))
        check(r.returncode == 2, "a missing patch file: exit 2")


if __name__ == "__main__":
    main()
