#!/usr/bin/env python3
"""ctest: PR #149's ubatch edge comes out of a run of the modelled launch logic and kernels.

    check_pr149_edge.py PROBE OUTDIR [--alone VARIANT] [--fixed-variant VARIANT] [PROBE ARGS...]

Runs PROBE on its PR #149 geometry cases alone (Qwen3.6-27B: 4 KV heads, gqa 6, ncols2 8; gfx1100: 48 CUs x 1) with
a JSON report, then requires: exit 0 (verdicts as expected); on fixed-minus-0003 (the meta bug alone: its kernel's
k00 race is fixed there) every emulated case with ub <= 64 passed and every one with ub >= 96 failed, and the run's
own note reads "clean at ub <= 64, wrong at ub >= 96"; fixed passed every case; the launch-logic-only note at KV
8192 puts the first whole tile at or below ub 96 and none at ub 64. The expected edge is the PR's statement ("clean at
ub <= 64, garbage at ub >= 96"), which is what this test holds the model to; the probe itself never contains it.
--alone / --fixed-variant name the meta-bug-alone and fixed variants of another pair (tests/fa_tree: the tree's own
kernels, tree-fixed-minus-1 and tree-fixed), and the probe arguments then select them.
"""
import json
import re
import subprocess
import sys
from pathlib import Path


def main():
    probe, outdir, extra = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    alone, fixed = "fixed-minus-0003", "fixed"
    while extra[:1] in (["--alone"], ["--fixed-variant"]) and len(extra) > 1:
        if extra[0] == "--alone":
            alone = extra[1]
        else:
            fixed = extra[1]
        extra = extra[2:]
    outdir.mkdir(parents=True, exist_ok=True)
    report = outdir / "pr149.json"
    cmd = [probe, "--case", "*gqa=6,ncols2=8,*", "--fuzz", "0", "--no-shrink", "--report", "json",
           "--out", str(report)] + extra
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    problems = []
    if rc != 0:
        problems.append(f"exit {rc}, not 0")
    d = json.loads(report.read_text())
    ub_of = lambda cid: int(re.search(r"ub=(\d+)\)$", cid).group(1))
    cases = [c for c in d["cases"] if "gqa=6,ncols2=8," in c["id"]]
    if not cases:
        problems.append("no PR #149 case ran")
    for c in cases:
        ub, failed = ub_of(c["id"]), c["failed_on"]
        if fixed in failed:
            problems.append(f"{fixed} failed {c['id']}")
        if ub <= 64 and alone in failed:
            problems.append(f"{alone} failed at ub {ub} (must be clean at ub <= 64)")
        if ub >= 96 and alone not in failed:
            problems.append(f"{alone} passed at ub {ub} (must be wrong at ub >= 96)")
    if not any(ub_of(c["id"]) <= 64 for c in cases) or not any(ub_of(c["id"]) >= 96 for c in cases):
        problems.append("the run has no case on one side of the edge")
    notes = d["notes"]
    edge = f"edge on {alone}: clean at ub <= 64, wrong at ub >= 96"
    if edge not in [n.strip() for n in notes]:
        problems.append(f"no note '{edge}'")
    plan = [n for n in notes if n.startswith("launch logic only") and "n_kv 8192," in n]
    m = re.search(r"clean at ub <= (\d+), wrong at ub >= (\d+)$", plan[0]) if plan else None
    if not m or not (64 <= int(m.group(1)) and int(m.group(2)) <= 96):
        problems.append(f"launch-logic edge at KV 8192 does not lie in (64, 96]: {plan}")
    for p in problems:
        print("check_pr149_edge:", p)
    if not problems:
        print(f"check_pr149_edge: {len(cases)} cases; {alone} clean at ub <= 64, wrong at ub >= 96")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
