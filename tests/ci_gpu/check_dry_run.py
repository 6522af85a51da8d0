#!/usr/bin/env python3
"""ci/gpu --cpu-dry-run over this build, checked from its JSON: the script must run every CPU-side step and exit 77
(a dry run cannot say that the GPU-only steps hold); gpu-summary.json must record every step's exit status and no
problem, and tileprobe-report's own JSON (digests.json, bench/throughput.json, probes-report.json) must hold equal
digests for every ck variant, a rate with its bound for every ck run, and every merged verdict as expected. A
failure names the missing piece.

    check_dry_run.py SOURCE_DIR BUILD_DIR OUT_DIR
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "ci_common"), os.path.join(here, "..", "..", "ci", "lib")]
from dry_run import DryRun  # noqa: E402
import probe_list  # noqa: E402

src, build, out = sys.argv[1:4]
# The build's probes (bin/probes.json): those with verdicts run on cpu and cuda; ci/gpu compares the ck-* ones'
# digests across backends; the others (swmmac-sweep) are steps of their own.
PROBES = probe_list.names(os.path.join(build, "bin"), "verdict")
CK = sorted(p for p in PROBES if p.startswith("ck-"))
ALL = probe_list.names(os.path.join(build, "bin"))
run = DryRun(src, out, "gpu", ["--cpu-dry-run", "--no-build", "--build-dir", build, "--bench-fuzz", "200", "--runs", "1"])
s = run.load_summary("gpu-summary.json")
if s:
    if not s["dry_run"] or s["gpu_backend"] != "cpu":
        run.bad("gpu-summary.json does not record a dry run on cpu")
    rows = {p["probe"]: p for p in s["probes"]}
    for probe in PROBES:
        r = rows.get(probe)
        if not r or r["cpu_exit"] != 0 or r["cuda_exit"] != 0:
            run.bad(f"probe {probe}: expected exit 0 on cpu and on the cuda stand-in, got {r}")
    steps = {(t["step"], t["backend"]): t["exit"] for t in s["steps"]}
    for want in [("isa-differential", "cpu"), ("isa-differential", "cuda"), ("swmmac-sweep", "cpu"),
                 ("swmmac-sweep", "cuda"), ("tp-bench-ck-kernel", "cpu,cpu")]:
        if steps.get(want) != 0:
            run.bad(f"step {want[0]} on {want[1]}: exit {steps.get(want, 'missing')}, expected 0")
    if s["swmmac_tables_identical"] is not True:
        run.bad("the swmmac-sweep tables measured on cpu and on the cuda stand-in are not recorded identical")
    race = {(r["variant"], r["mode"]): r for r in s["race"]}
    for v in ["upstream", "fixed"]:
        plain = race.get((v, "plain"))
        if not plain or plain["runs"] != 1 or plain["errored_runs"] != 0:
            run.bad(f"race {v} without skew: expected 1 run, none errored: {plain}")
        if (v, "skew") not in race or race[(v, "skew")]["runs"] != 0:
            run.bad(f"race {v} with skew: must be recorded as not run in a dry run")
    if race.get(("fixed", "plain"), {}).get("failing_runs") != 0:
        run.bad("race: fixed failed")
    san = s["sanitizer"]
    if len(san) != 4 or any(x["run"] or not x["cases_selected"] for x in san):
        run.bad(f"sanitizer: expected 4 steps not run, each with a filter that selects cases: {san}")
    # The tree's kernels (kernels/fattn_tree): recorded as not built where this build has no cuda tree variant; in a
    # cuda build with them, every step is recorded as not run (listing a tree run's cases needs the device).
    tree = s.get("tree")
    if tree is None:
        run.bad("gpu-summary.json has no tree section")
    elif not tree["variants"]:
        if tree["probes"] or tree["racecheck"]:
            run.bad(f"tree: steps recorded with no tree variant built: {tree}")
    else:
        if sorted(tree["variants"]) != ["tree-fixed", "tree-upstream", "tree-upstream-d256"]:
            run.bad(f"tree: variants {tree['variants']}")
        if len(tree["probes"]) != 2 or any(x["run"] for x in tree["probes"]):
            run.bad(f"tree: expected 2 probe steps, not run: {tree['probes']}")
        if len(tree["racecheck"]) != 3 * len(tree["variants"]) or any(
                x["run"] for x in tree["racecheck"]):
            run.bad(f"tree: expected 3 racecheck steps per variant, not run: {tree['racecheck']}")
    for key in ["digests", "throughput", "merge"]:
        if s["tileprobe_report"][key]["exit"] != 0:
            run.bad(f"tileprobe-report ({key}) exited {s['tileprobe_report'][key]['exit']}")

d = run.load("digests.json")
if d:
    c = d["comparison"]
    if d["exit_code"] != 0 or d["problems"] or not c or c["problems"]:
        run.bad(f"digests.json: exit {d['exit_code']}, problems {d['problems']}")
    elif sorted({r["probe"] for r in c["rows"]}) != CK:
        run.bad(f"digests.json compares {sorted({r['probe'] for r in c['rows']})}, expected {CK}")
    else:
        for r in c["rows"]:
            cells = {x["what"]: x for x in r["cells"]}
            if not r["equal"] or any(x["a"] != x["b"] for x in r["cells"]):
                run.bad(f"digests.json: {r['probe']} {r['variant']} differs")
            if cells["d_digest"]["a"] == "-" or cells["d_digest_cases"]["a"] in ("-", "0"):
                run.bad(f"digests.json: {r['probe']} {r['variant']} recorded no digest")
        variants = {p: sum(r["probe"] == p for r in c["rows"]) for p in CK}
        if any(n < 2 for n in variants.values()):
            run.bad(f"digests.json: fewer than two variants compared for some ck probe: {variants}")

t = run.load("bench/throughput.json")
if t:
    if t["exit_code"] != 0 or t["problems"]:
        run.bad(f"bench/throughput.json: exit {t['exit_code']}, problems {t['problems']}")
    for probe in CK:
        rates = [r for r in (t["throughput"] or []) if r["probe"] == probe]
        one = [r for r in rates if r["vs_cpu_one_process"] is None]
        shards = [r for r in rates if "shards side by side" in r["run"]]
        bounded = [r for r in rates if r["at_most"] is not None]
        sharded = 1 if len(os.sched_getaffinity(0)) > 1 else 0  # ci/gpu runs nproc shards side by side, none on one core
        if len(rates) != 2 + sharded or len(one) != 1 or len(shards) != sharded or len(bounded) != 1 + sharded:
            run.bad(f"bench/throughput.json, {probe}: expected the one-core cpu run, the shards and the cuda stand-in, "
                f"the last two with their bound: {rates}")
        for r in rates:
            if not (isinstance(r["case_runs_per_second"], (int, float)) and r["case_runs_per_second"] > 0):
                run.bad(f"bench/throughput.json, {probe}: no rate for {r['run']}")

m = run.load("probes-report.json")
if m:
    if m["exit_code"] != 0 or m["problems"]:
        run.bad(f"probes-report.json: exit {m['exit_code']}, problems {m['problems']}")
    merged = {r["probe"] for r in m["runs"] if r["as_expected"]}
    for probe in ALL:
        if probe not in merged:
            run.bad(f"probes-report.json: {probe} is not in the merged report as expected")

run.finish("ci/gpu dry run: every CPU-side step recorded in gpu-summary.json, tileprobe-report's digests, rates and "
           "merge as expected, exit 77 as documented")
