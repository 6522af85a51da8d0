#!/usr/bin/env python3
"""ci/slurm/fuzz-campaign.sbatch on a throwaway one-node Slurm cluster (cluster.py), submitted as a user submits it:
a few shards and a small --fuzz over the three ck probes, then three checks, each from JSON and Slurm's own job
records:
  1. the campaign as it is: the merge job exits 0, and its merged report (campaign-report.json) has the verdicts and
     the d_digest / d_digest_cases sums of ONE unsharded run of the same probes with the same --fuzz and --seed;
  2. a shard that failed (array task 3 could not write its reports: its folder's name is taken by a file, as a full
     or read-only share would fail it): Slurm records the task as failed, the merge job exits 1 and names shard 3/3;
  3. a shard removed (shard 2's reports deleted after the array ran, before the merge ran): the merge exits 1 and
     names shard 2/3.
First, the harness itself: a slurmctld that cannot start (its port taken) must fail the start with the last lines
of its log, and leave no daemon running.
Exit 0 all hold, 1 otherwise (each failure on one line), 77 when it cannot run here: not root (slurmd must be, to
start jobs as their users) or the Slurm/munge commands missing (ci/setup installs Debian's packages).

    check_campaign.py SOURCE_DIR BUILD_DIR
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from cluster import Cluster, ClusterError, missing_commands

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ci", "lib"))
import probe_list  # noqa: E402

SHARDS, FUZZ, SEED = 3, 300, 29
WAIT_SECONDS = 300

src, build = (os.path.abspath(a) for a in sys.argv[1:3])
# The campaign's default probes, which the script takes from the same manifest when TP_PROBES is not given.
PROBES = probe_list.names(os.path.join(build, "bin"), "campaign")
binaries = [os.path.join(build, "bin", f"probe-{p}") for p in PROBES] + [os.path.join(build, "bin", "tileprobe-report")]
failures = []


def bad(what):
    failures.append(what)
    print("FAIL:", what, flush=True)


def say(what):
    print(what, flush=True)


if os.geteuid() != 0:
    say("skipped: not root (slurmd starts each job as the user who submitted it, so it must run as root)")
    sys.exit(77)
if missing_commands():
    say(f"skipped: not installed: {', '.join(missing_commands())} (Debian's slurmctld slurmd slurm-client munge; "
        "ci/setup installs them)")
    sys.exit(77)
absent = [b for b in binaries if not os.access(b, os.X_OK)]
if absent:
    say(f"FAIL: not built: {', '.join(absent)}")
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        bad(f"{path}: {e}")
        return None


def verdicts(report):
    """What must be the same in a merged campaign and one unsharded run, per probe: the verdict and, per variant,
    the counts and the D digests (sums over the cases, so the shards' sum is the unsharded run's)."""
    out = {}
    for run in report["runs"]:
        variants = []
        for v in run["variants"]:
            if "d_digest" not in v["metrics"] or "d_digest_cases" not in v["metrics"]:
                bad(f"{run['probe']} {v['name']}: no d_digest / d_digest_cases in the report")
            variants.append({k: v[k] for k in ["name", "role", "passed", "failed", "errors"]} |
                            {k: v["metrics"].get(k) for k in ["d_digest", "d_digest_cases"]})
        out[run["probe"]] = {"as_expected": run["as_expected"], "broken": run["broken"], "variants": variants}
    return out


def unsharded_run(folder):
    """Each probe once, unsharded, with the campaign's --fuzz and --seed, merged by tileprobe-report like the
    campaign's shards."""
    os.makedirs(folder)
    env = dict(os.environ, TILEPROBE_FIXTURES=os.path.join(src, "fixtures"))
    for p in PROBES:
        r = subprocess.run([os.path.join(build, "bin", f"probe-{p}"), "--backend", "cpu", "--fuzz", str(FUZZ), "--seed",
                            str(SEED), "--report", "json", "--out-json", os.path.join(folder, f"probe-{p}.json")],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            bad(f"the unsharded run of probe-{p} exited {r.returncode}: {r.stderr.strip()[-500:]}")
    r = subprocess.run([os.path.join(build, "bin", "tileprobe-report"), "--out", os.path.join(folder, "report.md"),
                        "--json-out", os.path.join(folder, "report.json")] +
                       [os.path.join(folder, f"probe-{p}.json") for p in PROBES], capture_output=True, text=True)
    if r.returncode != 0:
        bad(f"tileprobe-report over the unsharded runs exited {r.returncode}: {r.stderr.strip()}")
    return load(os.path.join(folder, "report.json"))


def submit(cluster, out, *sbatch_args):
    """Submits the campaign as a user would (bash ci/slurm/fuzz-campaign.sbatch) with its output in `out`; returns
    its jobs as slurmctld records them: (the array's id, the merge job's record). --cpus-per-task=1: the script asks
    for 4 per shard, more than this node may have; a real cluster's partition would come the same way."""
    env = dict(cluster.env, TP_SHARDS=str(SHARDS), TP_FUZZ=str(FUZZ), TP_SEED=str(SEED), TP_BUILD_DIR=build,
               TP_OUT=out, TP_SBATCH_ARGS=" ".join(["--cpus-per-task=1", *sbatch_args]))
    env.pop("TP_PROBES", None)  # the script's default: the build's campaign probes
    r = subprocess.run(["bash", os.path.join(src, "ci", "slurm", "fuzz-campaign.sbatch")], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise ClusterError(f"submitting the campaign exited {r.returncode}: {r.stdout}{r.stderr}")
    mine = [j for j in cluster.jobs() if j.get("StdOut", "").startswith(out + "/")]
    arrays = {j["ArrayJobId"] for j in mine if j.get("JobName") == "tileprobe-fuzz"}
    merges = [j for j in mine if j.get("JobName") == "tileprobe-merge"]
    if len(arrays) != 1 or len(merges) != 1:
        raise ClusterError(f"the campaign did not submit one array and one merge job: {mine}")
    return arrays.pop(), merges[0]["JobId"]


def job(cluster, job_id):
    return next(j for j in cluster.jobs() if j["JobId"] == job_id)


def exit_status(record):
    """scontrol's ExitCode is STATUS:SIGNAL."""
    return int(record["ExitCode"].split(":")[0])


def scontrol(cluster, *args):
    r = subprocess.run(["scontrol", *args], env=cluster.env, capture_output=True, text=True)
    if r.returncode != 0:
        raise ClusterError(f"scontrol {' '.join(args)}: {r.stderr.strip()}")


def wait_idle(cluster, what):
    if not cluster.wait_idle(WAIT_SECONDS):
        raise ClusterError(f"{what}: jobs still queued after {WAIT_SECONDS} s")


def check_missing_shard(cluster, out, merge_id, shard, how):
    """The merge of a campaign lacking shard `shard`: Slurm records exit 1, and the merged report names the shard."""
    m = job(cluster, merge_id)
    if exit_status(m) != 1:
        bad(f"{how}: the merge job exited {m['ExitCode']} ({m['JobState']}), expected 1 (see {out}/merge.log)")
    report = load(os.path.join(out, "campaign-report.json"))
    if report is None:
        return
    if report["exit_code"] != 1:
        bad(f"{how}: campaign-report.json says exit {report['exit_code']}, expected 1")
    named = f"shard {shard}/{SHARDS} is missing"
    runs = {r["probe"]: r for r in report["runs"]}
    for p in PROBES:
        r = runs.get(p)
        if r is None or r["problems"] != [named] or r["as_expected"]:
            bad(f"{how}: {p} in the merged report: expected exactly the problem '{named}' and not as expected, "
                f"got {r and (r['problems'], r['as_expected'])}")


def check_start_failure(folder):
    """A daemon that does not come up fails the start, naming it, with its log's last lines; none is left running."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    c = Cluster(os.path.join(folder, "cluster-port-taken"), ports=(taken.getsockname()[1], 0))
    try:
        with c:
            bad("a cluster whose slurmctld port is taken started")
    except ClusterError as e:
        if not str(e).startswith("slurmctld did not start") or "slurmctld:" not in str(e):
            bad(f"a slurmctld that cannot bind its port: expected its log's last lines, got: {e}")
    finally:
        taken.close()
    left = [name for name, p, _ in c.daemons if p.poll() is None]
    if c.daemons or left:
        bad(f"daemons left after a failed start: {left or c.daemons}")


def main(folder):
    t0 = time.monotonic()
    check_start_failure(folder)
    say(f"a slurmctld that cannot start fails the start with its log: {time.monotonic() - t0:.1f} s")
    t0 = time.monotonic()
    with Cluster(os.path.join(folder, "cluster")) as cluster:
        say(f"cluster up in {time.monotonic() - t0:.1f} s: {cluster.version()}, one node ({cluster.node}, "
            f"{os.cpu_count()} CPUs), config {cluster.conf}")

        t = time.monotonic()
        reference = unsharded_run(os.path.join(folder, "unsharded"))
        say(f"unsharded run of {', '.join(PROBES)} (--fuzz {FUZZ} --seed {SEED}): {time.monotonic() - t:.1f} s")

        # 1. the campaign as submitted
        t = time.monotonic()
        out = os.path.join(folder, "campaign")
        array, merge = submit(cluster, out)
        wait_idle(cluster, "the campaign")
        m = job(cluster, merge)
        if exit_status(m) != 0:
            bad(f"the merge job exited {m['ExitCode']} ({m['JobState']}), expected 0 (see {out}/merge.log)")
        merged = load(os.path.join(out, "campaign-report.json"))
        if merged and reference:
            if merged["exit_code"] != 0 or merged["problems"]:
                bad(f"campaign-report.json: exit {merged['exit_code']}, problems {merged['problems']}")
            got, want = verdicts(merged), verdicts(reference)
            for p in PROBES:
                if got.get(p) != want.get(p):
                    bad(f"{p}: the merged campaign differs from one unsharded run:\n  campaign  {got.get(p)}\n"
                        f"  unsharded {want.get(p)}")
        shards = sorted(os.listdir(out))
        say(f"campaign of {SHARDS} shards (array {array}, merge {merge}): {time.monotonic() - t:.1f} s; {shards}")

        # 2. a shard that failed: task 3 cannot create its folder, so its probes write no report
        t = time.monotonic()
        out = os.path.join(folder, "campaign-failed-shard")
        os.makedirs(out)
        open(os.path.join(out, "shard-3"), "w").close()
        array, merge = submit(cluster, out)
        wait_idle(cluster, "the campaign with a failing shard")
        task3 = [j for j in cluster.jobs() if j.get("ArrayJobId") == array and j.get("ArrayTaskId") == "3"]
        if [(j["JobState"], exit_status(j) != 0) for j in task3] != [("FAILED", True)]:
            bad(f"array task 3 is not recorded as failed: {[(j['JobId'], j['JobState'], j['ExitCode']) for j in task3]}")
        check_missing_shard(cluster, out, merge, 3, "shard 3 failed")
        say(f"campaign with shard 3 failing: {time.monotonic() - t:.1f} s")

        # 3. a shard removed: the array runs, shard 2's reports are deleted, then the merge runs
        t = time.monotonic()
        out = os.path.join(folder, "campaign-removed-shard")
        array, merge = submit(cluster, out, "--hold")
        scontrol(cluster, "release", array)
        deadline = time.monotonic() + WAIT_SECONDS
        while any(j.get("ArrayJobId") == array and j["JobState"] in ("PENDING", "RUNNING", "COMPLETING")
                  for j in cluster.jobs()):
            if time.monotonic() > deadline:
                raise ClusterError(f"the shards of {out} still run after {WAIT_SECONDS} s")
            time.sleep(1)
        shutil.rmtree(os.path.join(out, "shard-2"))
        scontrol(cluster, "release", merge)
        wait_idle(cluster, "the campaign with a removed shard")
        check_missing_shard(cluster, out, merge, 2, "shard 2 removed")
        say(f"campaign with shard 2 removed: {time.monotonic() - t:.1f} s")
    say(f"daemons stopped; {time.monotonic() - t0:.1f} s in all")


def interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


# A ctest timeout or a Ctrl-C still stops the daemons (Cluster.__exit__) and removes the folder.
signal.signal(signal.SIGTERM, interrupted)
folder = tempfile.mkdtemp(prefix="tp-slurm-")
os.chmod(folder, 0o755)  # munged wants every folder above its socket open to all
try:
    main(folder)
except ClusterError as e:
    bad(str(e))
except KeyboardInterrupt as e:
    bad(f"interrupted ({e})")
finally:
    shutil.rmtree(folder, ignore_errors=True)
if not failures:
    say(f"the fuzz campaign on a throwaway Slurm cluster: merged = one unsharded run; a failed or removed shard "
        f"fails the merge, named")
sys.exit(1 if failures else 0)
