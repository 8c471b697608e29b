#!/usr/bin/env python3
"""Keeps gpulab's own GPU runs as recordings the offline page replays: each
RUNS/NAME.json that is a run on the GPU (`gpulab run NAME --backend cuda
--json`) becomes OUT/NAME.json with "backend": "recorded" and a "recorded"
object (the device, its compute capability, the driver and CUDA runtime
from the device check DEVICE.json, and the date), which the page labels
"recorded on DEVICE, DATE"; OUT/index.json lists them. A file that is not
a GPU run (an error, a simulation) is named on stderr and left out.
tools/record.sh and the GPU lease's record step (tools/gpu_session.sh) use it.

    tools/record_runs.py DEVICE.json RUNS OUT
"""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorded_index import write_index  # noqa: E402  (beside this file)


def recorded_of(dev):
    """The "recorded" object of every run made on this device check's GPU."""
    gpu = ((dev.get("runtime") or {}).get("devices") or [{}])[0]
    return {"device": gpu.get("name"), "compute_capability": gpu.get("compute_capability"),
            "driver_version": (dev.get("driver") or {}).get("driver_version"),
            "cuda_runtime": (dev.get("runtime") or {}).get("runtime_version"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        rec = recorded_of(json.load(f))
    runs, out = sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    envs = {}
    for file in sorted(os.listdir(runs)):
        if not file.endswith(".json"):
            continue
        try:
            with open(os.path.join(runs, file)) as f:
                env = json.load(f)
        except (OSError, ValueError) as e:
            print(f"record: {file}: not a result ({e.__class__.__name__}), left out", file=sys.stderr)
            continue
        if not isinstance(env, dict) or env.get("backend") != "cuda" or env.get("experiment") != file[:-5]:
            why = (env.get("error") or {}).get("code") if isinstance(env, dict) else None
            print(f"record: {file}: not a GPU run of {file[:-5]} ({why or 'another backend'}), left out", file=sys.stderr)
            continue
        env["backend"] = "recorded"
        env["recorded"] = rec
        with open(os.path.join(out, file), "w") as f:
            json.dump(env, f, indent=1)
        envs[file[:-5]] = env
        print(f"record: {out}/{file} ({rec['device']}, {rec['date']})")
    write_index(os.path.join(out, "index.json"), envs)
    return 0 if envs else 1


if __name__ == "__main__":
    sys.exit(main())
