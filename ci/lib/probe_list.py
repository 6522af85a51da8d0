#!/usr/bin/env python3
"""The probes of a build, from the manifest CMake writes beside them (BIN_DIR/probes.json: one entry per
tp_add_probe() call, cmake/probes.cmake), so that no script keeps a list of probe names of its own.

    probe_list.py BIN_DIR [--campaign | --verdict | --all]

prints the names (without the probe- prefix), one per line: --campaign the probes a fuzz campaign runs by default,
--verdict those with fail-pass verdicts (every probe but one whose variants are not fixes), --all (the default) every
probe. Exit 2 when the manifest is missing or malformed. Scripts in Python import `load(bin_dir)`."""
import json
import os
import sys

MANIFEST = "probes.json"


def load(bin_dir):
    """The manifest's probe entries, in the build's order; raises SystemExit(2) with one line when unreadable."""
    path = os.path.join(bin_dir, MANIFEST)
    try:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("manifest_version") != 1:
            raise ValueError(f"manifest_version {doc.get('manifest_version')!r} is not 1")
        return doc["probes"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"probe_list: {path}: {e} (build the default preset: cmake writes it)", file=sys.stderr)
        raise SystemExit(2)


def names(bin_dir, which="all"):
    keep = {"all": lambda p: True, "campaign": lambda p: p["campaign"], "verdict": lambda p: p["verdict_tests"]}
    return [p["name"] for p in load(bin_dir) if keep[which](p)]


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] not in ("--campaign", "--verdict", "--all")):
        print("usage: probe_list.py BIN_DIR [--campaign | --verdict | --all]", file=sys.stderr)
        return 2
    for name in names(argv[1], argv[2][2:] if len(argv) == 3 else "all"):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
