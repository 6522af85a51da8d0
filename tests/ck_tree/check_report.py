#!/usr/bin/env python3
"""Checks on a ck probe's JSON report for the tree variants (tests/ck_tree/CMakeLists.txt).

  check_report.py REPORT.json same MODEL=TREE ...   each pair fails on exactly the same cases
  check_report.py REPORT.json asan VARIANT          VARIANT has a failure whose evidence is ASan's
                                                    stack-buffer-overflow at a file:line in sparse_transforms.hpp
Exit 0 when the check holds, 1 when not (the reasons printed), 2 on bad usage or an unreadable report.
"""
import json
import re
import sys


def main(argv):
    if len(argv) < 4 or argv[2] not in ("same", "asan"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_report.py: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
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
