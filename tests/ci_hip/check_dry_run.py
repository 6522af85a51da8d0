#!/usr/bin/env python3
"""ci/hip --dry-run over this hip build, on a machine without an AMD card, checked from its JSON: the script must run
every host-side step, end each hip step at its documented "no HIP device" exit 77 and exit 77 itself (a dry run
cannot say that the card-only comparisons hold); hip-summary.json must record every step and no problem, the
pre-registered table's SHA-256 must be the file's (and printed by --predict), and tileprobe-report's
hip-report.json must hold every merged verdict as expected. A failure names the missing piece.

    check_dry_run.py SOURCE_DIR BUILD_DIR OUT_DIR
"""
import hashlib
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "ci_common"), os.path.join(here, "..", "..", "ci", "lib")]
from dry_run import DryRun  # noqa: E402
import probe_list  # noqa: E402

src, build, out = sys.argv[1:4]
# The build's probes (bin/probes.json): those with verdicts run on cpu and hip; the others (swmmac-sweep) are steps
# of their own.
PROBES = probe_list.names(os.path.join(build, "bin"), "verdict")
ALL = probe_list.names(os.path.join(build, "bin"))
run = DryRun(src, out, "hip", ["--dry-run", "--no-build", "--build-dir", build, "--runs", "1"])
s = run.load_summary("hip-summary.json")
if s:
    if not s["dry_run"] or s["card"]:
        run.bad("hip-summary.json does not record a dry run without a card")
    if s["simt_device_tests_exit"] != 77:
        run.bad(f"the dialect's device tests exited {s['simt_device_tests_exit']}, expected 77 (no HIP device)")
    run.check_probe_exits(s, PROBES, {"cpu_exit": 0, "hip_exit": 77})  # 77: no HIP device
    for probe in PROBES:
        if not os.path.isfile(os.path.join(out, f"{probe}.cpu.json")):
            run.bad(f"no cpu JSON report for {probe}")
    steps = {(t["step"], t["backend"]): t["exit"] for t in s["steps"]}
    for want, code in [(("swmmac-sweep-predict", "cpu"), 0), (("isa-differential", "cpu"), 0),
                       (("isa-differential", "hip"), 77), (("swmmac-sweep", "cpu"), 0), (("swmmac-sweep", "hip"), 77)]:
        if steps.get(want) != code:
            run.bad(f"step {want[0]} on {want[1]}: exit {steps.get(want, 'missing')}, expected {code}")
    if s["swmmac_cpu_table_equals_prediction"] is not True:
        run.bad("the software op's table on cpu is not recorded equal to the pre-registered one")
    if s["swmmac_hip_table_equals_prediction"] is not None:
        run.bad("without a card the hip table comparison must be recorded as not made (null)")
    try:
        with open(os.path.join(out, "swmmac-sweep.predicted.table"), "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        if s["predicted_table_sha256"] != sha:
            run.bad(f"hip-summary.json's predicted_table_sha256 is not the table's ({sha})")
        with open(os.path.join(out, "swmmac-sweep.predict.log")) as f:
            if sha not in f.read():
                run.bad("swmmac-sweep --predict did not print the table's SHA-256")
    except OSError as e:
        run.bad(f"the pre-registered table: {e}")
    race = {r["variant"]: r for r in s["race"]}
    for v in ["upstream", "fixed"]:
        if race.get(v, {}).get("run") is not False:
            run.bad(f"race {v}: must be recorded as not run (no HIP device): {race.get(v)}")
    t = s["tileprobe_report"]
    if t["exit"] != 0 or t["compared_cpu_hip"]:
        run.bad(f"tileprobe-report: exit {t['exit']}, compared {t['compared_cpu_hip']} (expected 0, no comparison)")

m = run.load("hip-report.json")
if m:
    if m["exit_code"] != 0 or m["problems"] or m["comparison"] is not None:
        run.bad(f"hip-report.json: exit {m['exit_code']}, problems {m['problems']}, comparison {m['comparison']}")
    merged = {r["probe"] for r in m["runs"] if r["as_expected"] and r["backend"] == "cpu"}
    for probe in ALL:
        if probe not in merged:
            run.bad(f"hip-report.json: {probe}'s cpu run is not in the merged report as expected")
md = os.path.join(out, "hip-report.md")
if not os.path.isfile(md) or os.path.getsize(md) == 0:
    run.bad("no merged report hip-report.md")

run.finish("ci/hip dry run: every host-side step recorded in hip-summary.json, every hip step at exit 77, the merged "
           "report as expected, exit 77 as documented")
