"""Shared harness of the GPU checks in this folder (python3 stdlib only):
run() calls `BUILD/bin/gpulab run NAME --backend cuda --json` and parses the
envelope; Tap numbers the checks and prints them as TAP, plan line last.
A check_<name>.py puts its own folder on sys.path and imports this, so it
runs the same from the repo root and from a bundle (tools/bundle.sh)."""
import json
import subprocess
import sys


def build_dir():
    """The build folder named on the command line (default `build`)."""
    return sys.argv[1] if len(sys.argv) > 1 else "build"


def run(experiment, timeout_s=300, **params):
    """Runs one experiment on the GPU; returns (exit status, envelope).
    Booleans go to the CLI as true/false. When the CLI cannot be started,
    overruns timeout_s or prints no JSON object, the envelope is an error
    object, so every check on it fails with the reason instead of a crash."""
    args = [build_dir() + "/bin/gpulab", "run", experiment, "--backend", "cuda", "--json"]
    args += ["--%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return 124, {"error": {"code": "timeout", "message": "no answer in %d s: %s" % (timeout_s, " ".join(args))}}
    except OSError as e:
        return 127, {"error": {"code": "no_binary", "message": "%s: %s" % (args[0], e)}}
    try:
        env = json.loads(p.stdout)
    except ValueError:
        env = None
    if not isinstance(env, dict):
        return p.returncode, {"error": {"code": "bad_output", "message": p.stdout[-300:] + p.stderr[-300:]}}
    return p.returncode, env


class Tap:
    """Counts and prints checks as `ok N - NAME: what`, a failure as
    `not ok N - NAME: what  # detail`; done() prints the plan `1..N` and
    returns the exit status (1 when any check failed)."""

    def __init__(self, name):
        self.name = name
        self.count = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        ok = bool(ok)
        self.count += 1
        self.failed += not ok
        line = "%s %d - %s: %s" % ("ok" if ok else "not ok", self.count, self.name, what)
        if not ok and not (isinstance(detail, str) and detail == ""):
            line += "  # " + (detail if isinstance(detail, str) else repr(detail))
        print(line, flush=True)
        return ok

    def skip(self, what, why):
        """A check that cannot run here, counted as skipped with the reason."""
        self.count += 1
        print("ok %d - %s: %s # SKIP %s" % (self.count, self.name, what, why), flush=True)

    def done(self):
        print("1..%d" % self.count, flush=True)
        return 1 if self.failed else 0
