#!/usr/bin/env python3
"""A reviewer reruns a counterexample from the pull-request comment alone: runs PROBE with ARGS, its reports written
under WORKDIR given as an absolute path (--report md,json --out WORKDIR/report), then requires of the Markdown:
- no absolute path of this machine (none of WORKDIR, SOURCE_DIR, the build, $HOME, nor any absolute path word);
- for each counterexample of the JSON report printed in it, a shell block that feeds the shrunk case's input text
  (the JSON's input_text, byte for byte) to the probe through a heredoc (`--input - <<'DELIM'`);
- each such block, run by bash from SOURCE_DIR (the Markdown's commands are for a clone's root) with only
  `--report json --out FILE` added before the heredoc, runs one case that fails on exactly the variants the
  counterexample failed on, with the same outcome (pass, error, metrics, detail, coverage) on the buggy variant.

usage: check_markdown_rerun.py PROBE WORKDIR SOURCE_DIR [ARGS...]"""
import json
import os
import re
import shlex
import subprocess
import sys

from rerun_ids import outcome_key, verdict

HEREDOC = re.compile(r"^(.*) <<'([A-Z0-9_]+)'$")
ABSOLUTE = re.compile(r"(?:^|[\s'\"`(=\[])(/[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]*)+)")


def heredoc_blocks(md):
    """(command line, delimiter, text) of every heredoc inside a ```sh block; a command continued with `\\` is joined."""
    blocks, lines, i = [], md.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("```sh"):
            command = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                command.append(lines[i])
                m = HEREDOC.match(lines[i])
                if m:
                    joined = " ".join(part.rstrip("\\").strip() for part in command[:-1] + [m.group(1)])
                    text, i = [], i + 1
                    while lines[i] != m.group(2):
                        text.append(lines[i])
                        i += 1
                    blocks.append((joined, m.group(2), "\n".join(text) + "\n"))
                    command = []
                elif not lines[i].endswith("\\"):
                    command = []
                i += 1
        i += 1
    return blocks


def variant_arg(command):
    words = shlex.split(command)
    return words[words.index("--variant") + 1] if "--variant" in words[:-1] else None


def main():
    probe, work, source, args = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    stem = os.path.join(work, "report")
    p = subprocess.run([probe] + args + ["--report", "md,json", "--out", stem], capture_output=True, text=True)
    if not os.path.isfile(stem + ".json") or not os.path.isfile(stem + ".md"):
        raise SystemExit(f"no reports (exit {p.returncode}): {p.stderr.strip()}")
    report = json.load(open(stem + ".json"))
    md = open(stem + ".md").read()
    problems = []

    for name, path in [("the work folder", work), ("the source folder", source),
                       ("the probe's folder", os.path.dirname(os.path.abspath(probe))),
                       ("the home folder", os.path.expanduser("~"))]:
        if len(path) > 1 and path in md:
            problems.append(f"the Markdown names {name}, {path}")
    for m in ABSOLUTE.finditer(md):
        problems.append(f"the Markdown holds the absolute path {m.group(1)}")

    blocks = heredoc_blocks(md)
    printed = [ce for ce in report["counterexamples"] if ce.get("input_text")]
    if not printed:
        problems.append("the report has no counterexample with an input text: nothing was shown to rerun")
    checked = 0
    for n, ce in enumerate(printed):
        variants = [ce["variant"]] + ([ce["reference_variant"]] if ce["reference_variant"] else [])
        mine = [b for b in blocks if variant_arg(b[0]) == ",".join(variants) and b[2] == ce["input_text"]]
        if not mine:
            # Two buggy variants that shrink to the same case with the same output share the first one's block.
            if any(b[2] == ce["input_text"] for b in blocks):
                continue
            problems.append(f"counterexample on {ce['variant']}: no heredoc block in the Markdown holds its input text")
            continue
        command, delim, text = mine[0]
        out = os.path.join(work, f"heredoc{n}.json")
        if os.path.exists(out):
            os.remove(out)
        script = f"{command} --report json --out {out} <<'{delim}'\n{text}{delim}\n"
        r = subprocess.run(["bash", "-c", script], cwd=source, capture_output=True, text=True)
        if not os.path.isfile(out):
            problems.append(f"the block for {ce['variant']} wrote no report (exit {r.returncode}): {r.stderr.strip()}")
            continue
        rerun = json.load(open(out))
        checked += 1
        want_failed = sorted(v for v, o in [(ce["variant"], ce["outcome"]),
                                            (ce["reference_variant"], ce["reference_outcome"])] if o and not o["pass"])
        if len(rerun["cases"]) != 1:
            problems.append(f"the block for {ce['variant']} ran {len(rerun['cases'])} cases, not one")
            continue
        got_failed = sorted(rerun["cases"][0]["failed_on"])
        if got_failed != want_failed:
            problems.append(f"the block for {ce['variant']}: failed on {got_failed}, the counterexample on {want_failed}")
        kept = [f for f in rerun["failures"] if f["variant"] == ce["variant"]]
        if kept and outcome_key(kept[0]["outcome"]) != outcome_key(ce["outcome"]):
            problems.append(f"the block for {ce['variant']}: its outcome differs from the counterexample's")
    return verdict(problems, f"{len(blocks)} heredoc block(s), {checked} rerun from the Markdown's text")


if __name__ == "__main__":
    sys.exit(main())
