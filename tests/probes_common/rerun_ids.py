#!/usr/bin/env python3
"""Every printed id reruns: runs PROBE once with ARGS, then reruns alone, with --case, every counterexample id of its
JSON report (the original and the shrunk one) and every kept failure, and runs each counterexample's reproduce lines
(--input FILE, --case ID). Each rerun must hold exactly that case, fail on exactly the variants the report said, and
(for the shrunk case and kept failures) give the very outcome the report printed.

usage: rerun_ids.py PROBE WORKDIR [ARGS...]"""
import json
import os
import shlex
import subprocess
import sys


def run(argv, out):
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run(argv + ["--report", "json", "--out", out], capture_output=True, text=True)
    if not os.path.exists(out) or os.path.getsize(out) == 0:
        raise SystemExit(f"no report from {shlex.join(argv)} (exit {p.returncode}): {p.stderr.strip()}")
    return p.returncode, json.load(open(out))


def outcome_key(o):
    return {k: o[k] for k in ("pass", "error", "metrics", "detail", "coverage")}


def main():
    probe, work, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    _, report = run([probe] + args, os.path.join(work, "report.json"))
    problems, checked = [], 0
    backend = report["backend"]

    def check(label, rerun, case_id, want_failed, want_outcomes):
        nonlocal checked
        checked += 1
        ids = [c["id"] for c in rerun["cases"]]
        if ids != [case_id]:
            problems.append(f"{label}: reran {ids}, expected exactly [{case_id}]")
            return
        got = sorted(rerun["cases"][0]["failed_on"])
        if want_failed is not None and got != sorted(want_failed):
            problems.append(f"{label}: failed on {got}, the report said {sorted(want_failed)}")
        for variant, want in want_outcomes.items():
            kept = [f for f in rerun["failures"] if f["variant"] == variant]
            if kept and outcome_key(kept[0]["outcome"]) != outcome_key(want):
                problems.append(f"{label}: outcome on {variant} differs from the report's")

    for n, ce in enumerate(report["counterexamples"]):
        variants = [ce["variant"]] + ([ce["reference_variant"]] if ce["reference_variant"] else [])
        shrunk_failed = [ce["variant"]] if not ce["outcome"]["pass"] else []
        if ce["reference_outcome"] is not None and not ce["reference_outcome"]["pass"]:
            shrunk_failed.append(ce["reference_variant"])
        base = [probe, "--backend", backend, "--variant", ",".join(variants)]
        _, r = run(base + ["--case", ce["shrunk"]], os.path.join(work, f"ce{n}-shrunk.json"))
        check(f"shrunk {ce['shrunk']}", r, ce["shrunk"], shrunk_failed, {ce["variant"]: ce["outcome"]})
        _, r = run(base + ["--case", ce["original"]], os.path.join(work, f"ce{n}-original.json"))
        row = next((c for c in report["cases"] if c["id"] == ce["original"]), None)
        check(f"original {ce['original']}", r, ce["original"],
              [v for v in variants if v in row["failed_on"]] if row else None, {})
        for k, line in enumerate(ce["reproduce"]):
            words = shlex.split(line)
            # Reports name the executable relative to a clone's root (build/default/bin/probe-X).
            if not os.path.isabs(words[0]) and "/" in words[0]:
                words[0] = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                        words[0])
            _, r = run(words, os.path.join(work, f"ce{n}-reproduce{k}.json"))
            got = r["cases"][0]["id"] if len(r["cases"]) == 1 else None
            check(f"reproduce '{line}'", r, got if got else ce["shrunk"], shrunk_failed, {ce["variant"]: ce["outcome"]})
        if not ce["reproduce"]:
            problems.append(f"counterexample {ce['shrunk']}: no reproduce line")
        if not ce["input_file"]:
            problems.append(f"counterexample {ce['shrunk']}: no input file written")
    for n, f in enumerate(report["failures"]):
        _, r = run([probe, "--backend", backend, "--variant", f["variant"], "--case", f["case"]],
                   os.path.join(work, f"failure{n}.json"))
        check(f"kept failure {f['case']} on {f['variant']}", r, f["case"], [f["variant"]], {f["variant"]: f["outcome"]})
    if not report["counterexamples"]:
        problems.append("the report has no counterexample: nothing was shown to rerun")
    return verdict(problems, f"{checked} reruns checked")


def verdict(problems, summary):
    """Prints each problem and the summary line; the exit status: 1 when there is any problem."""
    for p in problems:
        print("FAIL", p)
    print(f"{summary}, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
