#!/usr/bin/env python3
"""The instructions a beellama tree's compiled kernels contain that tileprobe's AMDGPU simulator does not execute.

Asks the simulator itself: tp-amdgpu-sim-coverage-audit --unexecutable decodes each code object with the machine's
decoder (simt/amdgpu_sim/machine) and prints every instruction it turned into an op that stops the dispatch, with the
decoder's reason (an undeclared mnemonic, a modifier or operand form it does not model, ...), its function and its
printed text; code after an s_trap no path reaches is left out. This script groups them: one line per reason with how
often it occurs per arch, the modifiers seen, the functions and one example. No rule of the decoder is restated here.

The code objects are the tree variants' (kernels/fattn_tree: <variant dir>/<arch>.hsaco, the kernels tileprobe
launches, and <variant dir>/kvarn.<arch>.o, the tree's KVarN store kernels).

  needed_instructions.py --tool AUDIT --from TEXT --out FILE CODE_OBJECT...
  needed_instructions.py ... --check FILE     exit 1 when FILE differs from the result, 77 when FILE's first line (the
                                              build it was made from: tree, fix, variants, archs) is another build's
Exit codes: 0 as expected, 1 FILE out of date, 2 bad usage or a code object the tool cannot read, 77 another build's.
"""
import argparse
import collections
import re
import subprocess
import sys


def short(symbol):
    """The function's name from its Itanium-mangled symbol (what the list shows), else the symbol."""
    m = re.match(r"_Z(?:L|N[KL]*)?(\d+)", symbol)
    if not m:
        return symbol
    n, i = int(m.group(1)), m.end()
    return symbol[i : i + n]


def modifiers_of(text):
    """The modifiers after the operands (decoder.cpp's split: the operands end at the first token without a comma)."""
    toks = text.split()[1:]
    for i, t in enumerate(toks):
        if not t.endswith(","):
            return toks[i + 1 :]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="tp-amdgpu-sim-coverage-audit")
    ap.add_argument("--out")
    ap.add_argument("--check")
    ap.add_argument("--from", dest="source", default="", help="what build the code objects come from (first line)")
    ap.add_argument("code_objects", nargs="+")
    a = ap.parse_args()
    run = subprocess.run([a.tool, "--unexecutable", *a.code_objects], capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print(f"needed_instructions.py: {a.tool} --unexecutable failed (exit {run.returncode})", file=sys.stderr)
        return 2
    seen = collections.defaultdict(
        lambda: {"count": collections.Counter(), "functions": set(), "example": "", "modifiers": set()})
    for line in run.stdout.splitlines():
        arch, function, reason, text = line.split("\t", 3)
        e = seen[reason]
        e["count"][arch] += 1
        e["functions"].add(short(function))
        e["example"] = e["example"] or text
        e["modifiers"].update(modifiers_of(text))
    lines = [f"# from: {a.source}",
             "# Instructions in the beellama tree variants' code objects that tileprobe's AMDGPU simulator does not execute",
             "# (tests/fa_tree/needed_instructions.py: the simulator's decoder over kernels/fattn_tree's code objects,",
             "# through tp-amdgpu-sim-coverage-audit --unexecutable).",
             "# what stops it | occurrences per arch | modifiers seen | functions | example"]
    for p in sorted(seen):
        e = seen[p]
        counts = " ".join(f"{arch}:{n}" for arch, n in sorted(e["count"].items()))
        mods = " ".join(sorted(e["modifiers"])) or "-"
        lines.append(f"{p} | {counts} | {mods} | {len(e['functions'])}: {', '.join(sorted(e['functions']))} | "
                     f"{e['example']}")
    if not seen:
        lines.append("# none: the simulator's decoder makes every instruction of these code objects executable")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.check:
        with open(a.check, encoding="utf-8") as f:
            want = f.read()
        if want.splitlines()[:1] != lines[:1]:
            print(f"skipped: {a.check} was made from another build ({want.splitlines()[0] if want else 'empty'}); "
                  f"this one is {lines[0]}")
            return 77
        if want != text:
            sys.stdout.write(text)
            print(f"needed_instructions.py: {a.check} is out of date (regenerate it with --out)", file=sys.stderr)
            return 1
        print(f"{a.check}: {len(seen)} missing forms, as committed")
    if not a.out and not a.check:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
