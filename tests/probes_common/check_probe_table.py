#!/usr/bin/env python3
"""The README's probe table names exactly the build's probes with fail-pass verdicts (BIN_DIR/probes.json, written by
tp_add_probe), in the manifest's order or any other, and every probe of the build, the others included, links its
own README, which exists. A new probe registered in CMake without a README row fails here.

    check_probe_table.py BIN_DIR SOURCE_DIR"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ci", "lib"))
import probe_list  # noqa: E402
from rerun_ids import verdict as report  # noqa: E402

HEADER = re.compile(r"^\| probe \|")
ROW = re.compile(r"^\| \[`([a-z0-9-]+)`\]\(probes/([a-z0-9-]+)/README\.md\) \|")


def main(bin_dir, source_dir):
    with open(os.path.join(source_dir, "README.md")) as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if HEADER.match(line)), None)
    if start is None:
        print("README.md has no probe table (a line starting '| probe |')")
        return 1
    table = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        m = ROW.match(line)
        if not m or m.group(1) != m.group(2):
            print(f"README.md: a probe table row does not start with [`NAME`](probes/NAME/README.md): {line[:80]}")
            return 1
        table.append(m.group(1))
    problems = []
    verdict = probe_list.names(bin_dir, "verdict")
    for p in sorted(set(verdict) - set(table)):
        problems.append(f"probe {p} is registered (tp_add_probe) but has no row in README.md's probe table")
    for p in sorted(set(table) - set(verdict)):
        problems.append(f"README.md's probe table lists {p}, which this build does not register with verdicts")
    text = "\n".join(lines)
    for p in probe_list.names(bin_dir):
        if f"(probes/{p}/README.md)" not in text:
            problems.append(f"README.md does not link probes/{p}/README.md")
        if not os.path.isfile(os.path.join(source_dir, "probes", p, "README.md")):
            problems.append(f"probes/{p}/README.md does not exist")
    return report(problems, f"README.md's probe table: {' '.join(table)}; registered with verdicts: {' '.join(verdict)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
