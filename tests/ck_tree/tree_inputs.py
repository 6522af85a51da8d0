#!/usr/bin/env python3
"""What configure does with a CK tree it is given, checked on inputs derived here from the user's own file
(kernels/ck_sparse/tree/tree.cmake in script mode: the functions configure calls).

  tree_inputs.py unknown-api CMAKE CXX TREE_CMAKE FILE WORK
      FILE with SparseCompressTransform's exec, execOld and execExtVec renamed (compress, compressOld, ...):
      configure stops, and says why in one line naming what the file declares and the generations it knows
  tree_inputs.py layouts CMAKE CXX TREE_CMAKE FILE WORK
      FILE placed as a composable_kernel checkout, a rocm-libraries checkout and its projects/composablekernel holds
      it: each root finds it, each under its own layout; a folder without it stops configure in one line
  tree_inputs.py patch-layouts CMAKE CXX TREE_CMAKE FILE FIXED_FILE WORK
      the diff FILE -> FIXED_FILE, written against a composable_kernel checkout (a/include/...) and against
      rocm-libraries (a/projects/composablekernel/include/...): either applies and gives FIXED_FILE's bytes; a patch
      that does not touch the file stops configure in one line

Exit 0 when the check holds, 1 when not (the reasons printed), 2 on bad usage.
"""
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys

REL = "include/ck_tile/core/arch/mma/sparse/sparse_transforms.hpp"
ROCM = "projects/composablekernel/"


def run_tree_cmake(cmake, cxx, tree_cmake, root, out, *extra):
    cmd = [cmake, f"-DCXX={cxx}", f"-DROOT={root}", f"-DOUT={out}", *extra, "-P", tree_cmake]
    p = subprocess.run(cmd, capture_output=True, text=True)
    facts = dict(line.split("=", 1) for line in p.stderr.splitlines() if re.match(r"^[a-z0-9]+=", line))
    return p.returncode, facts, p.stderr


def one_line_error(stderr, needle):
    """The lines of the error text (CMake's frame around it left out) that carry `needle`: must be exactly one."""
    frame = re.compile(r"^(CMake Error at |Call Stack|  \S.*\(tp_ck_tree_|\s*$)")
    text = [l for l in stderr.splitlines() if not frame.match(l)]
    hits = [l.strip() for l in text if needle in l]
    return hits if len(hits) == 1 and len(text) == 1 else None


def stopped_in_one_line(rc, stderr, needle, what):
    """Configure must have stopped, saying `needle` in one line: prints that line, or why not; True when it held."""
    line = one_line_error(stderr, needle)
    if rc == 0 or not line:
        print(f"expected configure to stop with one line saying '{needle}' ({what}); it printed:\n{stderr}")
        return False
    print(f"  {line[0]}")
    return True


def place(file, root_rel, work):
    dest = os.path.join(work, root_rel, REL)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(file, dest)
    return dest


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def unknown_api(cmake, cxx, tree_cmake, file, work):
    with open(file) as f:
        text = f.read()
    doctored, renamed = re.subn(r"\bexec(Old|ExtVec)?\(", r"compress\1(", text)
    if renamed == 0:
        print(f"{file}: no exec, execOld or execExtVec to rename: not a sparse_transforms.hpp this test knows")
        return 1
    dest = os.path.join(work, "doctored", REL)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w") as f:
        f.write(doctored)
    rc, _, err = run_tree_cmake(cmake, cxx, tree_cmake, os.path.join(work, "doctored"), os.path.join(work, "out"))
    print(f"doctored copy ({renamed} names renamed): exit {rc}")
    if not stopped_in_one_line(rc, err, "no API the harness knows", "an API it does not know"):
        return 1
    line = one_line_error(err, "no API the harness knows")[0]
    missing = [w for w in ("compress(", "it knows ") if w not in line]
    if missing:
        print(f"the line does not name {missing}")
        return 1
    return 0


def layouts(cmake, cxx, tree_cmake, file, work):
    roots = {
        "composable_kernel checkout": ("ck", place(file, "ck", work)),
        "rocm-libraries checkout": ("rl", place(file, "rl/" + ROCM, work)),
        "rocm-libraries' projects/composablekernel": ("rl/" + ROCM, os.path.join(work, "rl", ROCM, REL)),
    }
    bad, seen = 0, {}
    for what, (root, want) in roots.items():
        rc, facts, err = run_tree_cmake(cmake, cxx, tree_cmake, os.path.join(work, root), os.path.join(work, "out"),
                                        "-DSTOP_AFTER=locate")
        got = facts.get("file")
        print(f"{what}: exit {rc}, file {got}, layout {facts.get('layout')}")
        if rc != 0 or not got or os.path.realpath(got) != os.path.realpath(want):
            print(f"  expected {want}:\n{err}")
            bad += 1
        seen.setdefault(facts.get("layout"), []).append(what)
    if len(seen) != len(roots):
        print(f"the three roots should name three layouts: {seen}")
        bad += 1
    os.makedirs(os.path.join(work, "empty"), exist_ok=True)
    rc, _, err = run_tree_cmake(cmake, cxx, tree_cmake, os.path.join(work, "empty"), os.path.join(work, "out"),
                                "-DSTOP_AFTER=locate")
    print(f"a folder without the file: exit {rc}")
    if not stopped_in_one_line(rc, err, "holds no", "a folder without sparse_transforms.hpp"):
        bad += 1
    return 1 if bad else 0


def patch_layouts(cmake, cxx, tree_cmake, file, fixed, work):
    with open(file) as f:
        before = f.readlines()
    with open(fixed) as f:
        after = f.readlines()
    if before == after:
        print(f"{file} and {fixed} are the same: no patch to write")
        return 1
    want = sha256(fixed)
    bad = 0
    for prefix in ("", ROCM, "src/"):
        path = os.path.join(work, f"fix-{prefix.replace('/', '-') or 'ck-'}.patch")
        with open(path, "w") as f:
            f.writelines(difflib.unified_diff(before, after, f"a/{prefix}{REL}", f"b/{prefix}{REL}"))
        rc, facts, err = run_tree_cmake(cmake, cxx, tree_cmake, file[: -len(REL)], os.path.join(work, "out"),
                                        f"-DPATCH={path}", "-DSTOP_AFTER=patch")
        if prefix == "src/":
            print(f"a patch of another file (a/{prefix}{REL}): exit {rc}")
            if not stopped_in_one_line(rc, err, "does not change", "a patch of another file"):
                bad += 1
            continue
        got = facts.get("sha256")
        print(f"patch against a/{prefix}{REL}: exit {rc}, patched file sha256 {got}")
        if rc != 0 or got != want:
            print(f"  expected {want} ({fixed}):\n{err}")
            bad += 1
    return 1 if bad else 0


def main(argv):
    modes = {"unknown-api": (unknown_api, 6), "layouts": (layouts, 6), "patch-layouts": (patch_layouts, 7)}
    if len(argv) < 2 or argv[1] not in modes or len(argv) != modes[argv[1]][1] + 1:
        print(__doc__, file=sys.stderr)
        return 2
    fn, _ = modes[argv[1]]
    work = argv[-1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return fn(*argv[2:-1], work)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
