"""What the ctests of the evidence scripts' runs (tests/ci_gpu, tests/ci_hip: dry runs, and ci/hip on the simulator)
share: run the script with its output in OUT.log, collect failures, load the JSON files it wrote, check the summary's
own exit code and problems, and end with one line per failure (exit 1) or the success line (exit 0)."""
import json
import os
import subprocess
import sys


class DryRun:
    def __init__(self, src, out, script, args, expected_exit=77):
        self.out = out
        self.failures = []
        env = dict(os.environ)
        env.setdefault("TILEPROBE_FIXTURES", os.path.join(src, "fixtures"))
        with open(out + ".log", "wb") as log:
            self.rc = subprocess.run([os.path.join(src, "ci", script)] + args + ["--out", out], stdout=log,
                                     stderr=subprocess.STDOUT, env=env).returncode
        if self.rc != expected_exit:
            self.bad(f"ci/{script} {' '.join(args)} exited {self.rc}, expected {expected_exit} (see {out}.log)")

    def bad(self, what):
        self.failures.append(what)

    def load(self, name):
        """The JSON file NAME under OUT, or None (a failure) when it is missing or not JSON."""
        try:
            with open(os.path.join(self.out, name)) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            self.bad(f"{name}: {e}")
            return None

    def load_summary(self, name):
        """The script's own summary: its exit_code must be the script's, and it must list no problem."""
        s = self.load(name)
        if s:
            if s["exit_code"] != self.rc:
                self.bad(f"{name} says exit {s['exit_code']}, the script exited {self.rc}")
            for p in s["problems"]:
                self.bad(f"{name}: problem: {p}")
        return s

    def check_probe_exits(self, summary, probes, want):
        """Every probe's row of the summary's `probes` list must have exactly the exit statuses of `want`
        ({"cpu_exit": 0, "hip_exit": 77}, ...)."""
        rows = {p["probe"]: p for p in summary["probes"]}
        for probe in probes:
            r = rows.get(probe)
            if not r or any(r[k] != v for k, v in want.items()):
                self.bad(f"probe {probe}: expected {want}, got {r}")

    def finish(self, success):
        for f in self.failures:
            print("FAIL:", f)
        if not self.failures:
            print(success)
        sys.exit(1 if self.failures else 0)
