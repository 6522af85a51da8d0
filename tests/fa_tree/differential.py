#!/usr/bin/env python3
"""Model-vs-tree differential: one fa probe's tree list (probes/fa_support tree_run) through the model's variants and
the tree's, in one run on --backend hip (TILEPROBE_HIP=sim:<arch> runs both on tileprobe's simulator), judged by the
same oracle. Per pair MODEL:TREE (upstream:tree-upstream-d256, fixed:tree-fixed), the cases each fails (wrong rows
beyond the oracle's bound, or for the race probe also LDS hazards) must be the same set, and so must the verdict
"raced at all" (the variant's LDS hazard total > 0). Every case that fails on one side only is printed by id (its
rerun command too); any divergence exits 1.

  differential.py PROBE_BINARY OUT_DIR BUGGY_MODEL:BUGGY_TREE FIXED_MODEL:FIXED_TREE [-- EXTRA PROBE ARGS]
The first pair runs in the buggy role, the second in the fixed one (the probe's own fail-pass verdict is reported
beside, not required: this test's verdict is the comparison).
Exit: 0 no divergence, 1 a divergence, 2 bad usage, 3 the probe run broke (its exit code and stderr shown), 77 the
probe says there is no HIP device.
"""
import json
import os
import shlex
import subprocess
import sys


def main(argv):
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    if len(argv) != 5 or any(":" not in p for p in argv[3:]):
        print("usage: differential.py PROBE_BINARY OUT_DIR BUGGY_MODEL:BUGGY_TREE FIXED_MODEL:FIXED_TREE "
              "[-- EXTRA PROBE ARGS]", file=sys.stderr)
        return 2
    probe, out_dir, pairs = argv[1], argv[2], [tuple(p.split(":", 1)) for p in argv[3:]]
    os.makedirs(out_dir, exist_ok=True)
    report = os.path.join(out_dir, os.path.basename(probe) + ".differential.json")
    variants = [v for pair in pairs for v in pair]
    cmd = [probe, "--backend", "hip", "--variant", ",".join(variants), "--buggy", ",".join(pairs[0]),
           "--fixed", ",".join(pairs[1]),
           "--no-shrink", "--report", "json", "--out-json", report] + extra
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode == 77:
        print(run.stdout)
        return 77
    print(f"the probe's own verdict: exit {run.returncode} (0: as expected, 1: not)")
    if run.returncode not in (0, 1) or not os.path.exists(report):
        print(run.stdout)
        print(f"FAIL: the probe run broke (exit {run.returncode})")
        return 3
    with open(report) as f:
        r = json.load(f)
    failed = {v: set() for v in variants}
    for c in r["cases"]:
        for v in c["failed_on"]:
            failed.setdefault(v, set()).add(c["id"])
    hazards = {v["name"]: v["hazards"]["raw"] + v["hazards"]["war"] + v["hazards"]["waw"] for v in r["variants"]}
    errors = {v["name"]: v["errors"] for v in r["variants"]}
    diverged = False
    print(f"{len(r['cases'])} cases, each on {', '.join(variants)}")
    for model, tree in pairs:
        only_model, only_tree = sorted(failed[model] - failed[tree]), sorted(failed[tree] - failed[model])
        same_race = (hazards.get(model, 0) > 0) == (hazards.get(tree, 0) > 0)
        print(f"{model} vs {tree}: failing {len(failed[model])} / {len(failed[tree])} cases, hazards "
              f"{hazards.get(model, 0)} / {hazards.get(tree, 0)}, errors {errors.get(model, 0)} / {errors.get(tree, 0)}")
        for side, other, ids in ((model, tree, only_model), (tree, model, only_tree)):
            for i in ids:
                diverged = True
                print(f"  DIVERGES: {i} fails on {side}, passes on {other}; rerun: {shlex.quote(probe)} --backend hip "
                      f"--variant {model},{tree} --case {shlex.quote(i)}")
        if not same_race:
            diverged = True
            print(f"  DIVERGES: race verdict: {model} {'raced' if hazards.get(model, 0) else 'no hazard'}, "
                  f"{tree} {'raced' if hazards.get(tree, 0) else 'no hazard'}")
        if errors.get(model, 0) or errors.get(tree, 0):
            diverged = True
            print(f"  DIVERGES: a case ended in an error (not a verdict); the report {report} names it")
    print("FAIL: the model and the tree differ" if diverged else "ok: the model and the tree agree on every case")
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
