#!/usr/bin/env python3
"""The planner against real GPU runs (tests/plan/README.md, reference 4).

Each lease/DEVICE/NAME.run.json is the measurement kit's `--plan` run of a
configuration on a real GPU, kept as the lease wrote it, beside the plan it
measured (NAME.plan.json). This plans the run's settings again with today's
planner (the files' own predictions are history) and checks every counter
the run measured lands in today's band: the tensors within 5 %, allocated,
reserved, device and the step in the plan's own bands. Prints TAP.

usage: lease.py GPULAB_BINARY [LEASE_DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TENSOR_BAND = (0.95, 1.05)  # the kit's band for the tensor components (kit/measure.py, PLAN_TENSOR_BAND)
TENSORS = ("weights", "gradients", "optimizer_state", "activations")
# Before the kit emptied the cache at each plan (baseline_reserved_bytes), a
# run that found more than its CUDA context in use (the H100's context before
# any model: 527 MiB) measured an earlier plan's cache in reserved and device.
CONTEXT_ALONE = 1 << 30


def plan_again(gpulab, settings):
    """Today's plan of the settings a run echoes (the echo names the preset `model`; custom models have none)."""
    s = dict(settings)
    name = s.pop("model", "custom")
    if name != "custom":
        s["preset"] = name
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(s, fh)
    try:
        r = subprocess.run([gpulab, "plan", "--json", "--settings", fh.name], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    finally:
        os.unlink(fh.name)
    if r.returncode != 0:
        raise ValueError("gpulab plan refused the run's settings: %s %s" % (r.stdout.strip(), r.stderr.strip()))
    return json.loads(r.stdout)


def bands(plan):
    """counter id -> (point, low, high) of today's plan."""
    mem = plan["memory"]
    out = {}
    for c in mem["components"]:
        if c["id"] in TENSORS:
            out[c["id"]] = (c["bytes"], TENSOR_BAND[0] * c["bytes"], TENSOR_BAND[1] * c["bytes"])
    for cid in ("allocated", "reserved", "device"):
        low, high = mem[cid + "_band"]
        out[cid] = (mem[cid + "_bytes"], low, high)
    low, high = plan["step_ms_band"]
    out["step_ms"] = (plan["step_ms"], low, high)
    return out


def runs_of(lease):
    """(device dir, name, run's plan_run) for every kept run, oldest first within a device."""
    for dev in sorted(os.listdir(lease)):
        d = os.path.join(lease, dev)
        if not os.path.isdir(d):
            continue
        found = []
        for f in sorted(os.listdir(d)):
            if f.endswith(".run.json"):
                name = f[:-len(".run.json")]
                if not os.path.exists(os.path.join(d, name + ".plan.json")):
                    raise ValueError("%s/%s: no %s.plan.json beside it" % (dev, f, name))
                with open(os.path.join(d, f)) as fh:
                    doc = json.load(fh)
                found.append((doc["provenance"]["date"], dev, name, doc["plan_run"]))
        for _, dev, name, pr in sorted(found):
            yield dev, name, pr


def held_cache(pr, earlier):
    """Why a run's reserved and device are not its own, or None."""
    if "baseline_reserved_bytes" in pr:
        if pr["baseline_reserved_bytes"] == 0:
            return None
        return "%d bytes were reserved before its model" % pr["baseline_reserved_bytes"]
    base = pr.get("baseline_device_bytes", 0)
    if base <= CONTEXT_ALONE:
        return None
    src = [n for n, dev_bytes in earlier if dev_bytes == base]
    return "%.1f GiB in use before its model%s (the kit then kept one plan's cache for the next)" % (
        base / 2**30, ", the earlier plan %s's device figure" % src[-1] if src else "")


def main(argv):
    if len(argv) < 2:
        print("usage: lease.py GPULAB_BINARY [LEASE_DIR]", file=sys.stderr)
        return 2
    gpulab, lease = argv[1], argv[2] if len(argv) > 2 else os.path.join(HERE, "lease")
    print("TAP version 13")
    n = failed = 0
    own = {}  # device -> runs whose reserved and device were scored
    earlier = {}
    for dev, name, pr in runs_of(lease):
        was = earlier.setdefault(dev, [])
        measured = {c["id"]: c["measured"] for c in pr["counters"]}
        n += 1
        try:
            today = bands(plan_again(gpulab, pr["settings"]))
        except (ValueError, KeyError, subprocess.TimeoutExpired) as e:
            failed += 1
            print("not ok %d - %s/%s planned again: %s" % (n, dev, name, e))
            continue
        print("ok %d - %s/%s planned again" % (n, dev, name))
        why = held_cache(pr, was)
        if why is None:
            own.setdefault(dev, []).append(name)
        was.append((name, measured.get("device")))
        for cid, (point, low, high) in today.items():
            n += 1
            got = measured.get(cid)
            label = "%s/%s %s: measured %.6g, planned %.6g (ratio %s), band [%.6g, %.6g]" % (
                dev, name, cid, got or 0, point, "%.3f" % (got / point) if got and point else "-", low, high)
            if got is None:
                failed += 1
                print("not ok %d - %s: the run has no such counter" % (n, label))
            elif cid in ("reserved", "device") and why:
                print("ok %d - %s # SKIP not this plan's: %s" % (n, label, why))
            else:
                ok = low <= got <= high
                failed += not ok
                print("%sok %d - %s" % ("" if ok else "not ", n, label))
    for dev in earlier:
        n += 1
        ok = bool(own.get(dev))
        failed += not ok
        print("%sok %d - %s: at least one run measured reserved and device of its own plan (%s)" % (
            "" if ok else "not ", n, dev, ", ".join(own.get(dev, [])) or "none"))
    n += 1
    ok = bool(earlier)
    failed += not ok
    print("%sok %d - the lease corpus %s holds runs" % ("" if ok else "not ", n, lease))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
