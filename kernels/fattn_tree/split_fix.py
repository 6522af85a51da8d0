#!/usr/bin/env python3
"""Split a fix (a unified diff against a beellama tree) into its changes, and write the sub-patches the tree variants
are built from. Runs at configure time on the user's patch (TP_FA_PATCH) or on the diff between the user's two trees;
everything it writes goes to the build folder, never to the repository (the hunks' context lines are upstream text).

A *change* is a set of hunks that make the same edit: the same tokens removed and the same tokens inserted (compared
token by token, whitespace ignored). PR #149's three `dst_final_meta` stores lose the same `!is_kvarn_kv &&` and so
are one change, its two barriers two changes, its device guard a fourth. Changes are numbered 1.. in the order their
first hunk appears in the patch.

  split_fix.py diff ROOT FIXED OUT        the fix of TP_FA_FIXED_ROOT: a unified diff (a/ b/ paths) of the files
                                          apply_tree.cmake copies; exit 3 when they are equal
  split_fix.py list PATCH                 one line per change: N<TAB>hunks<TAB>description (for configure's variants)
  split_fix.py without N PATCH OUT        every hunk except change N's            (tree-fixed-minus-N)
  split_fix.py only-guard PATCH OUT       the hunks that raise the RDNA WMMA device guard `DKQ > 128` to `DKQ > 256`
                                          (tree-upstream-d256); exit 3 when the patch has none
Hunk headers of the hunks kept are renumbered, so a sub-patch applies exactly (no offsets, no fuzz).
Exit codes: 0 done, 2 unreadable or malformed patch, 3 nothing to write.
"""
import difflib
import os
import re
import sys

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+|[0-9]+|\S")
# The RDNA guard of flash_attn_ext_f16 (docs/bugs/fattn-kernel.md §2): PR #149 raised its `DKQ > 128` to `DKQ > 256`.
GUARD_FROM = re.compile(r"\bDKQ\s*>\s*128\b")
GUARD_TO = re.compile(r"\bDKQ\s*>\s*256\b")


class PatchError(Exception):
    pass


class FileDiff:
    def __init__(self, header):
        self.header = header  # the lines before the first hunk (diff --git, index, ---, +++)
        self.path = None
        self.hunks = []


class Hunk:
    HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")

    def __init__(self, line):
        m = self.HEADER.match(line)
        if not m:
            raise PatchError("malformed hunk header: " + line.rstrip("\n"))
        self.old_start, self.new_start = int(m.group(1)), int(m.group(3))
        self.old_len = int(m.group(2)) if m.group(2) is not None else 1
        self.new_len = int(m.group(4)) if m.group(4) is not None else 1
        self.tail = m.group(5)
        self.body = []

    def removed(self):
        return [l[1:] for l in self.body if l.startswith("-")]

    def added(self):
        return [l[1:] for l in self.body if l.startswith("+")]

    def edit(self):
        """The tokens this hunk removes and inserts, as one comparable value."""
        a = TOKEN.findall("\n".join(self.removed()))
        b = TOKEN.findall("\n".join(self.added()))
        ops = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if tag != "equal":
                ops.append((tuple(a[i1:i2]), tuple(b[j1:j2])))
        return tuple(ops)

    def raises_guard(self):
        return any(GUARD_FROM.search(l) for l in self.removed()) and any(GUARD_TO.search(l) for l in self.added())


def parse(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.readlines()
    except OSError as e:
        raise PatchError(f"{path}: {e.strerror}")
    files, cur, hunk = [], None, None
    for line in lines:
        if line.startswith("diff ") or (line.startswith("--- ") and (cur is None or cur.hunks)):
            cur = FileDiff([line])
            files.append(cur)
            hunk = None
        elif cur is not None and hunk is None and not line.startswith("@@"):
            cur.header.append(line)
            if line.startswith("+++ "):
                p = line[4:].strip().split("\t")[0]
                cur.path = p[2:] if p.startswith(("a/", "b/")) else p
        elif line.startswith("@@"):
            if cur is None:
                raise PatchError(f"{path}: a hunk before any file header")
            hunk = Hunk(line)
            cur.hunks.append(hunk)
        elif hunk is not None and line[:1] in (" ", "-", "+", "\\", "\n"):
            hunk.body.append(line)
        elif hunk is not None:
            raise PatchError(f"{path}: unexpected line in a hunk of {cur.path}: {line.rstrip()}")
    files = [f for f in files if f.hunks]
    if not files:
        raise PatchError(f"{path}: no hunks (is it a unified diff?)")
    for f in files:
        if not f.path:
            raise PatchError(f"{path}: a file section without a +++ line")
    return files


def changes(files):
    """[(edit, [(file, hunk), ...])] in order of first appearance."""
    order, groups = [], {}
    for f in files:
        for h in f.hunks:
            e = h.edit()
            if e not in groups:
                groups[e] = []
                order.append(e)
            groups[e].append((f, h))
    return [(e, groups[e]) for e in order]


def describe(edit, hunks):
    def text(tokens):
        # a space between tokens, except inside a run of punctuation (`&&`, `();`)
        out = ""
        for t in tokens:
            if out and not (len(t) == 1 and not t.isalnum() and t != "_" and not out[-1].isalnum() and out[-1] != "_"):
                out += " "
            out += t
        return out or "nothing"
    parts = [f"`{text(a)}` -> `{text(b)}`" for a, b in edit]
    where = ", ".join(f"{f.path.rsplit('/', 1)[-1]}:{h.old_start}" for f, h in hunks)
    return f"{'; '.join(parts)} at {where}"


def write(files, keep, out):
    """The hunks for which keep(file, hunk) holds, headers renumbered for the hunks left out."""
    chunks = []
    for f in files:
        kept = [h for h in f.hunks if keep(f, h)]
        if not kept:
            continue
        chunks.extend(f.header)
        shift = 0  # lines the left-out hunks before this one would have added
        for h in f.hunks:
            if h not in kept:
                shift += h.new_len - h.old_len
                continue
            new_start = h.new_start - shift
            chunks.append(f"@@ -{h.old_start},{h.old_len} +{new_start},{h.new_len} @@{h.tail}\n")
            chunks.extend(h.body)
    return write_lines(chunks, out)


def write_lines(chunks, out):
    """False (nothing written) when there is nothing to write."""
    if not chunks:
        return False
    with open(out, "w", encoding="utf-8", errors="surrogateescape") as fo:
        fo.writelines(chunks)
    return True


def tree_files(root):
    """What apply_tree.cmake copies: ggml/include, the top-level ggml/src headers, ggml/src/ggml-cuda."""
    out = []
    for sub, recursive in (("ggml/include", True), ("ggml/src", False), ("ggml/src/ggml-cuda", True)):
        base = os.path.join(root, sub)
        for dirpath, dirnames, filenames in os.walk(base):
            for f in filenames:
                if recursive or f.endswith(".h"):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
            if not recursive:
                break
    return set(out)


def diff_trees(root, fixed, out):
    chunks = []
    for rel in sorted(tree_files(root) | tree_files(fixed)):
        def read(base):
            p = os.path.join(base, rel)
            if not os.path.exists(p):
                return []
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                return f.read().splitlines(keepends=True)
        a, b = read(root), read(fixed)
        if a == b:
            continue
        d = list(difflib.unified_diff(a, b, "a/" + rel, "b/" + rel))
        if d:
            chunks.append(f"diff --git a/{rel} b/{rel}\n")
            chunks.extend(l if l.endswith("\n") else l + "\n\\ No newline at end of file\n" for l in d)
    return write_lines(chunks, out)


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "diff":
            return 0 if diff_trees(argv[2], argv[3], argv[4]) else 3
        if len(argv) == 3 and argv[1] == "list":
            for n, (e, hunks) in enumerate(changes(parse(argv[2])), 1):
                print(f"{n}\t{len(hunks)}\t{describe(e, hunks)}")
            return 0
        if len(argv) == 5 and argv[1] == "without":
            files = parse(argv[3])
            groups = changes(files)
            n = int(argv[2])
            if not 1 <= n <= len(groups):
                raise PatchError(f"change {n}: the patch has changes 1..{len(groups)}")
            drop = {id(h) for _, h in groups[n - 1][1]}
            return 0 if write(files, lambda f, h: id(h) not in drop, argv[4]) else 3
        if len(argv) == 4 and argv[1] == "only-guard":
            files = parse(argv[2])
            return 0 if write(files, lambda f, h: h.raises_guard(), argv[3]) else 3
    except PatchError as e:
        print(f"split_fix.py: {e}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
