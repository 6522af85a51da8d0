#!/usr/bin/env python3
"""ci/hip, the card holder's one command, end to end on tileprobe's simulator (--simulator ARCH: TILEPROBE_HIP=sim:ARCH,
a wave32 gfx1201 or gfx1100), over this hip build: every step runs and is judged as on a card, so a step that would
fail on a card fails here. Checked from the JSON it and the tools write: exit 0 with no problem; every probe exit 0
on cpu and on hip; the dialect's device tests, both isa-differential runs and both sweeps exit 0, the measured table
equal to the pre-registered one; isa-differential on hip ran every wave32 op variant and named exactly the wave64
ones as not applicable to this device, with the reason, on cpu none; the combine race caught by upstream in every run
(the simulator's adversarial schedule is deterministic) and never by fixed; tileprobe-report's merge exit 0 with the
cpu and hip runs compared variant by variant and equal. A failure names the missing piece.

    check_sim_run.py SOURCE_DIR BUILD_DIR OUT_DIR ARCH [ci/hip options...]
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "ci_common"), os.path.join(here, "..", "..", "ci", "lib")]
from dry_run import DryRun  # noqa: E402
import probe_list  # noqa: E402

STEPS = [("swmmac-sweep-predict", "cpu"), ("isa-differential", "cpu"), ("isa-differential", "hip"),
         ("swmmac-sweep", "cpu"), ("swmmac-sweep", "hip")]

src, build, out, arch = sys.argv[1:5]
# The build's probes (bin/probes.json): those with verdicts run on cpu and hip; the others (swmmac-sweep) are steps
# of their own.
PROBES = probe_list.names(os.path.join(build, "bin"), "verdict")
CK_PROBES = [p for p in PROBES if p.startswith("ck-")]
ALL = probe_list.names(os.path.join(build, "bin"))
options = sys.argv[5:]
run = DryRun(src, out, "hip", ["--simulator", arch, "--no-build", "--build-dir", build, *options], expected_exit=0)
s = run.load_summary("hip-summary.json")
if s:
    if s["dry_run"] or not s["card"] or s["simulated"] != arch:
        run.bad(f"hip-summary.json does not record a run on the simulated {arch}: dry_run {s['dry_run']}, card "
                f"{s['card']}, simulated {s['simulated']}")
    if s["simt_device_tests_exit"] != 0:
        run.bad(f"the dialect's device tests exited {s['simt_device_tests_exit']}")
    run.check_probe_exits(s, PROBES, {"cpu_exit": 0, "hip_exit": 0})
    steps = {(t["step"], t["backend"]): t["exit"] for t in s["steps"]}
    for want in STEPS:
        if steps.get(want) != 0:
            run.bad(f"step {want[0]} on {want[1]}: exit {steps.get(want, 'missing')}, expected 0")
    if s["swmmac_cpu_table_equals_prediction"] is not True or s["swmmac_hip_table_equals_prediction"] is not True:
        run.bad(f"the sweep tables are not recorded equal to the pre-registered one: cpu "
                f"{s['swmmac_cpu_table_equals_prediction']}, hip {s['swmmac_hip_table_equals_prediction']}")

    isa = s["isa_differential"]
    cpu, hip = isa["cpu"], isa["hip"]
    if not cpu or cpu["exit_code"] != 0 or cpu["not_applicable"] or cpu["ran"] != cpu["op_variants"]:
        run.bad(f"isa-differential on cpu: every op variant must run and none be not applicable: {cpu}")
    if not hip:
        run.bad("isa-differential on hip wrote no --json counts")
    else:
        # The table's wave64 op variants are the gfx9 SMFMACs (kernels/mma/wave_op_table.cu); cpu runs every one.
        ran_on_cpu = cpu["op_variants"] if cpu else 0
        na = {v["op_variant"]: v["reason"] for v in hip["not_applicable"]}
        if hip["exit_code"] != 0 or hip["failed"] or hip["not_run_on_backend"] or hip["device_wave"] != 32:
            run.bad(f"isa-differential on hip: exit {hip['exit_code']}, failed {hip['failed']}, not run "
                    f"{hip['not_run_on_backend']}, device wave {hip['device_wave']}")
        if not na or any(not name.startswith("gfx9_") or "wave64 op on a wave32 device" not in why
                         for name, why in na.items()):
            run.bad(f"isa-differential on hip: the not-applicable op variants must be the wave64 gfx9 ones, each "
                    f"with its reason: {na}")
        if hip["ran"] + len(na) != ran_on_cpu or hip["ran"] == 0 or hip["equal"] != hip["cases"]:
            run.bad(f"isa-differential on hip: {hip['ran']} ran + {len(na)} not applicable != {ran_on_cpu} op "
                    f"variants, or not every case equal ({hip['equal']} of {hip['cases']})")

    race = {r["variant"]: r for r in s["race"]}
    up, fx = race.get("upstream", {}), race.get("fixed", {})
    if not up.get("run") or up.get("failing_runs") != up.get("runs"):
        run.bad(f"race on upstream: every run must catch it on the simulator: {up}")
    if not fx.get("run") or fx.get("failing_runs") != 0:
        run.bad(f"race on fixed: no run may fail: {fx}")
    t = s["tileprobe_report"]
    if t["exit"] != 0 or not t["compared_cpu_hip"]:
        run.bad(f"tileprobe-report: exit {t['exit']}, compared {t['compared_cpu_hip']} (expected 0, compared)")

m = run.load("hip-report.json")
if m:
    if m["exit_code"] != 0 or m["problems"]:
        run.bad(f"hip-report.json: exit {m['exit_code']}, problems {m['problems']}")
    merged = {(r["probe"], r["backend"]) for r in m["runs"] if r["as_expected"]}
    for probe in ALL:
        for backend in ["cpu", "hip"]:
            if (probe, backend) not in merged:
                run.bad(f"hip-report.json: {probe} on {backend} is not in the merged report as expected")
    c = m["comparison"]
    compared = {row["probe"] for row in c["rows"]} if c else set()
    if not c or c["problems"] or any(not row["equal"] for row in c["rows"]) or not set(CK_PROBES) <= compared:
        run.bad(f"hip-report.json: the cpu/hip comparison must hold for every row, the ck probes among them: {c}")

run.finish(f"ci/hip on the simulated {arch}: every step run and as expected, isa-differential's wave64 op variants "
           "named not applicable, the merged report's cpu and hip runs equal")
