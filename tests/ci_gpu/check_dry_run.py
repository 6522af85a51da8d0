#!/usr/bin/env python3
"""ci/gpu --cpu-dry-run over this build, checked from its JSON: the script must run every CPU-side step and exit 77
(a dry run cannot say that the GPU-only steps hold); gpu-summary.json must record every step's exit status and no
problem, and tileprobe-report's own JSON (digests.json, bench/throughput.json, probes-report.json) must hold equal
digests for every ck variant, a rate with its bound for every ck run, and every merged verdict as expected. A
failure names the missing piece.

    check_dry_run.py SOURCE_DIR BUILD_DIR OUT_DIR
"""
import json
import os
import subprocess
import sys

CK = ["ck-idx-swap-xor", "ck-nibble-overcount", "ck-phantom-fallback"]
PROBES = CK + ["fa-k00-combine-race", "fa-missing-tile-meta"]

src, build, out = sys.argv[1:4]
env = dict(os.environ)
env.setdefault("TILEPROBE_FIXTURES", os.path.join(src, "fixtures"))
with open(out + ".log", "wb") as log:
    rc = subprocess.run([os.path.join(src, "ci", "gpu"), "--cpu-dry-run", "--no-build", "--build-dir", build, "--out",
                         out, "--bench-fuzz", "200", "--runs", "1"], stdout=log, stderr=subprocess.STDOUT,
                        env=env).returncode
failures = []


def bad(what):
    failures.append(what)


def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        bad(f"{name}: {e}")
        return None


if rc != 77:
    bad(f"ci/gpu --cpu-dry-run exited {rc}, expected 77 (see {out}.log)")
s = load("gpu-summary.json")
if s:
    if s["exit_code"] != rc:
        bad(f"gpu-summary.json says exit {s['exit_code']}, the script exited {rc}")
    if not s["dry_run"] or s["gpu_backend"] != "cpu":
        bad("gpu-summary.json does not record a dry run on cpu")
    for p in s["problems"]:
        bad(f"gpu-summary.json: problem: {p}")
    rows = {p["probe"]: p for p in s["probes"]}
    for probe in PROBES:
        r = rows.get(probe)
        if not r or r["cpu_exit"] != 0 or r["cuda_exit"] != 0:
            bad(f"probe {probe}: expected exit 0 on cpu and on the cuda stand-in, got {r}")
    steps = {(t["step"], t["backend"]): t["exit"] for t in s["steps"]}
    for want in [("isa-differential", "cpu"), ("isa-differential", "cuda"), ("swmmac-sweep", "cpu"),
                 ("swmmac-sweep", "cuda"), ("tp-bench-ck-kernel", "cpu,cpu")]:
        if steps.get(want) != 0:
            bad(f"step {want[0]} on {want[1]}: exit {steps.get(want, 'missing')}, expected 0")
    if s["swmmac_tables_identical"] is not True:
        bad("the swmmac-sweep tables measured on cpu and on the cuda stand-in are not recorded identical")
    race = {(r["variant"], r["mode"]): r for r in s["race"]}
    for v in ["upstream", "fixed"]:
        plain = race.get((v, "plain"))
        if not plain or plain["runs"] != 1 or plain["errored_runs"] != 0:
            bad(f"race {v} without skew: expected 1 run, none errored: {plain}")
        if (v, "skew") not in race or race[(v, "skew")]["runs"] != 0:
            bad(f"race {v} with skew: must be recorded as not run in a dry run")
    if race.get(("fixed", "plain"), {}).get("failing_runs") != 0:
        bad("race: fixed failed")
    san = s["sanitizer"]
    if len(san) != 4 or any(x["run"] or not x["cases_selected"] for x in san):
        bad(f"sanitizer: expected 4 steps not run, each with a filter that selects cases: {san}")
    for key in ["digests", "throughput", "merge"]:
        if s["tileprobe_report"][key]["exit"] != 0:
            bad(f"tileprobe-report ({key}) exited {s['tileprobe_report'][key]['exit']}")

d = load("digests.json")
if d:
    c = d["comparison"]
    if d["exit_code"] != 0 or d["problems"] or not c or c["problems"]:
        bad(f"digests.json: exit {d['exit_code']}, problems {d['problems']}")
    elif sorted({r["probe"] for r in c["rows"]}) != CK:
        bad(f"digests.json compares {sorted({r['probe'] for r in c['rows']})}, expected {CK}")
    else:
        for r in c["rows"]:
            cells = {x["what"]: x for x in r["cells"]}
            if not r["equal"] or any(x["a"] != x["b"] for x in r["cells"]):
                bad(f"digests.json: {r['probe']} {r['variant']} differs")
            if cells["d_digest"]["a"] == "-" or cells["d_digest_cases"]["a"] in ("-", "0"):
                bad(f"digests.json: {r['probe']} {r['variant']} recorded no digest")
        variants = {p: sum(r["probe"] == p for r in c["rows"]) for p in CK}
        if any(n < 2 for n in variants.values()):
            bad(f"digests.json: fewer than two variants compared for some ck probe: {variants}")

t = load("bench/throughput.json")
if t:
    if t["exit_code"] != 0 or t["problems"]:
        bad(f"bench/throughput.json: exit {t['exit_code']}, problems {t['problems']}")
    for probe in CK:
        rates = [r for r in (t["throughput"] or []) if r["probe"] == probe]
        one = [r for r in rates if r["vs_cpu_one_process"] is None]
        shards = [r for r in rates if "shards side by side" in r["run"]]
        bounded = [r for r in rates if r["at_most"] is not None]
        sharded = 1 if len(os.sched_getaffinity(0)) > 1 else 0  # ci/gpu runs nproc shards side by side, none on one core
        if len(rates) != 2 + sharded or len(one) != 1 or len(shards) != sharded or len(bounded) != 1 + sharded:
            bad(f"bench/throughput.json, {probe}: expected the one-core cpu run, the shards and the cuda stand-in, "
                f"the last two with their bound: {rates}")
        for r in rates:
            if not (isinstance(r["case_runs_per_second"], (int, float)) and r["case_runs_per_second"] > 0):
                bad(f"bench/throughput.json, {probe}: no rate for {r['run']}")

m = load("probes-report.json")
if m:
    if m["exit_code"] != 0 or m["problems"]:
        bad(f"probes-report.json: exit {m['exit_code']}, problems {m['problems']}")
    merged = {r["probe"] for r in m["runs"] if r["as_expected"]}
    for probe in PROBES + ["swmmac-sweep"]:
        if probe not in merged:
            bad(f"probes-report.json: {probe} is not in the merged report as expected")

for f in failures:
    print("FAIL:", f)
if not failures:
    print("ci/gpu dry run: every CPU-side step recorded in gpu-summary.json, tileprobe-report's digests, rates and "
          "merge as expected, exit 77 as documented")
sys.exit(1 if failures else 0)
