"""A throwaway one-node Slurm cluster on localhost, for tests: every file under one temporary folder (a munge key
generated for it, slurm.conf, state, spool, logs), its own ports and its own munge socket, so a Slurm or munge that
the machine already runs is never touched (the daemons get `-f`/`--socket`, the clients SLURM_CONF). The daemons run
in the foreground as children of this process, each stopped by its own pid in stop() (also when the test fails or is
interrupted; the kernel sends them SIGTERM should this process die first). A daemon that does not come up raises
ClusterError with the last lines of its log.

    with Cluster(folder) as c:          # start(); stop() on the way out
        subprocess.run(["sbatch", ...], env=c.env)
"""
import ctypes
import os
import re
import signal
import socket
import subprocess
import time

# What the cluster needs, and the Debian packages that bring it (ci/setup installs them).
COMMANDS = {"munged": "munge", "mungekey": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd",
            "sbatch": "slurm-client", "scontrol": "slurm-client", "squeue": "slurm-client", "scancel": "slurm-client",
            "sinfo": "slurm-client"}


class ClusterError(Exception):
    pass


def missing_commands():
    """The commands of COMMANDS not on PATH (nor in /usr/sbin, where Debian puts the daemons), with their packages."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    missing = []
    for cmd, package in COMMANDS.items():
        if not any(os.access(os.path.join(d, cmd), os.X_OK) for d in path.split(":") if d):
            missing.append(f"{cmd} ({package})")
    return missing


def free_ports(n):
    """n TCP ports free on 127.0.0.1 now (held open together, so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _die_with_parent():
    # PR_SET_PDEATHSIG: should the test itself be killed (a ctest timeout), the kernel stops the daemon too.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"(no log: {e})\n"


class Cluster:
    def __init__(self, folder, ports=None):
        """ports: slurmctld's and slurmd's (default: two free ones)."""
        self.folder = os.path.abspath(folder)
        self.ports = ports
        self.node = socket.gethostname().split(".")[0]
        self.conf = os.path.join(self.folder, "slurm.conf")
        self.socket = os.path.join(self.folder, "run", "munge.socket")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.env["PATH"] = self.env.get("PATH", "") + ":/usr/sbin:/sbin"
        self.daemons = []  # (name, Popen, log path), in start order

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def path(self, *parts):
        return os.path.join(self.folder, *parts)

    def version(self):
        out = subprocess.run(["sinfo", "--version"], env=self.env, capture_output=True, text=True).stdout
        return out.strip()

    def start(self):
        # munged refuses a key readable by others and a socket folder others cannot enter.
        os.makedirs(self.folder, exist_ok=True)
        os.chmod(self.folder, 0o755)
        for sub, mode in [("etc", 0o700), ("run", 0o755), ("lib", 0o700), ("log", 0o755), ("state", 0o700),
                          ("spool", 0o755)]:
            os.makedirs(self.path(sub), exist_ok=True)
            os.chmod(self.path(sub), mode)
        key = self.path("etc", "munge.key")
        self._run(["mungekey", "--create", f"--keyfile={key}"])
        ctld_port, d_port = self.ports or free_ports(2)
        with open(self.conf, "w") as f:
            f.write(f"""# A throwaway one-node cluster (tests/slurm/cluster.py); nothing outside {self.folder}
ClusterName=tpthrowaway
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
MinJobAge=3600
StateSaveLocation={self.path("state")}
SlurmdSpoolDir={self.path("spool")}
SlurmctldPidFile={self.path("run", "slurmctld.pid")}
SlurmdPidFile={self.path("run", "slurmd.pid")}
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=tp Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")
        self._daemon("munged", ["munged", "--foreground", f"--key-file={key}", f"--socket={self.socket}",
                                f"--pid-file={self.path('run', 'munged.pid')}",
                                f"--log-file={self.path('log', 'munged.file.log')}",
                                f"--seed-file={self.path('lib', 'munged.seed')}"],
                     ready=lambda: os.path.exists(self.socket))
        # -D: in the foreground (the pid is the one started here), logging to its stderr, i.e. log/<name>.log.
        self._daemon("slurmctld", ["slurmctld", "-D", "-f", self.conf],
                     ready=lambda: "is UP" in self._out(["scontrol", "ping"]))
        self._daemon("slurmd", ["slurmd", "-D", "-f", self.conf],
                     ready=lambda: self._out(["sinfo", "-h", "-n", self.node, "-o", "%T"]).strip() == "idle")

    def _run(self, cmd):
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")

    def _out(self, cmd):
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True).stdout

    def _daemon(self, name, cmd, ready, seconds=60):
        log = self.path("log", f"{name}.log")
        with open(log, "wb") as out:
            p = subprocess.Popen(cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 preexec_fn=_die_with_parent)
        self.daemons.append((name, p, log))
        deadline = time.monotonic() + seconds
        while not ready():
            if p.poll() is not None:
                raise ClusterError(f"{name} did not start: it exited {p.returncode}; the last lines of {log}:\n"
                                   f"{tail(log)}")
            if time.monotonic() > deadline:
                raise ClusterError(f"{name} did not start: not ready after {seconds} s; the last lines of {log}:\n"
                                   f"{tail(log)}")
            time.sleep(0.2)

    def jobs(self):
        """Every job slurmctld still knows (MinJobAge keeps finished ones): a dict per job of scontrol's fields."""
        out = self._out(["scontrol", "show", "job", "-o"])
        jobs = []
        for line in out.splitlines():
            if line.startswith("JobId="):
                jobs.append(dict(re.findall(r"(\S+?)=(\S*)", line)))
        return jobs

    def wait_idle(self, seconds):
        """Until no job is pending or running; False when `seconds` pass first."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self._out(["squeue", "-h", "-o", "%i"]).strip():
                return True
            time.sleep(1)
        return False

    def stop(self):
        """Cancels what still runs, then stops every daemon started here by its own pid, the last started first."""
        if any(name == "slurmctld" and p.poll() is None for name, p, _ in self.daemons):
            subprocess.run(["scancel", "--full", "--user", str(os.getuid())], env=self.env, capture_output=True)
        for name, p, _ in reversed(self.daemons):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.daemons = []
