#!/usr/bin/env python3
"""Checks on a ck probe's JSON report for the tree variants (tests/ck_tree/CMakeLists.txt).

  check_report.py REPORT.json same MODEL=TREE ...   each pair fails on exactly the same cases
  check_report.py REPORT.json asan VARIANT          VARIANT has a failure whose evidence is ASan's
                                                    stack-buffer-overflow at a file:line in sparse_transforms.hpp
  check_report.py REPORT.json provenance VARIANT=FILE,HARNESS ...
                                                    the environment names where VARIANT's code came from: its file,
                                                    layout, git commit, API generation, and FILE's SHA-256; and the
                                                    routes configure found are the ones HARNESS --api says it takes
Exit 0 when the check holds, 1 when not (the reasons printed), 2 on bad usage or an unreadable report.
"""
import hashlib
import json
import re
import subprocess
import sys

PROVENANCE = ("file", "layout", "git commit", "sha256", "API generation", "harness routes")


def provenance(report, pairs):
    env = {e["key"]: e["value"] for e in report["environment"]}
    bad = 0
    for pair in pairs:
        variant, paths = pair.split("=", 1)
        file, harness = paths.split(",")
        facts = {k: env.get(f"{variant} {k}", "") for k in PROVENANCE}
        for k, v in facts.items():
            print(f"{variant} {k}: {v}")
        with open(file, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        routes = subprocess.run([harness, "--api"], capture_output=True, text=True).stdout.strip()
        why = [f"no '{variant} {k}'" for k, v in facts.items() if not v]
        if facts["sha256"] != want:
            why.append(f"sha256 is not {file}'s ({want})")
        if facts["harness routes"] != routes:
            why.append(f"{harness} --api says it takes '{routes}'")
        for w in why:
            print(f"  {w}")
        bad += len(why)
    return 1 if bad else 0


def main(argv):
    if len(argv) < 4 or argv[2] not in ("same", "asan", "provenance"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_report.py: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    if argv[2] == "provenance":
        return provenance(report, argv[3:])
    if argv[2] == "same":
        bad = 0
        for pair in argv[3:]:
            model, tree = pair.split("=")
            differ = [c["id"] for c in report["cases"]
                      if (model in c["failed_on"]) != (tree in c["failed_on"])]
            failed = sum(1 for c in report["cases"] if model in c["failed_on"])
            print(f"{model} vs {tree}: {len(report['cases'])} cases, {failed} failed on {model}, "
                  f"{len(differ)} with another verdict on {tree}")
            for cid in differ[:10]:
                print(f"  differs: {cid}")
            bad += len(differ)
        return 1 if bad else 0
    variant = argv[3]
    frame = re.compile(r"#0 .*sparse_transforms\.hpp:\d+:\d+")
    hits = 0
    for f in report["failures"]:
        if f.get("variant", variant) != variant:
            continue
        detail = f["outcome"]["detail"]
        if any("AddressSanitizer: stack-buffer-overflow" in d for d in detail) and any(frame.search(d) for d in detail):
            hits += 1
            if hits == 1:
                print(f"{variant}: {f['case']}")
                for d in detail:
                    if d.startswith("  "):
                        print(d)
    print(f"{variant}: {hits} failure(s) with ASan's stack-buffer-overflow in sparse_transforms.hpp as evidence")
    return 0 if hits else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
