#!/usr/bin/env python3
"""Keeps a measurement kit run (kit/measure.py --out FILE) as recordings the
offline page replays: one OUT/NAME.json per experiment, "backend":
"recorded" with the device and date it was measured on, and the kit's
"measured_with" kept, so the page labels it "recorded with the measurement
kit, PyTorch ..., on ..., DATE", never as a run of gpulab's own kernels
(tools/record.sh records those). OUT/index.json lists them.

    tools/record_kit.py [--allow-cpu] KIT.json OUT

A run of a machine without a GPU is refused: it is no recording of a GPU.
--allow-cpu keeps one anyway, labelled "on the CPU (...)", for the tests of
the labels (tests/e2e/yours.test.mjs); never commit one to web/recorded/.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorded_index import write_index  # noqa: E402  (beside this file)


def main():
    args = sys.argv[1:]
    allow_cpu = "--allow-cpu" in args
    args = [a for a in args if a != "--allow-cpu"]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kit = json.load(open(args[0]))
    out = args[1]
    prov = kit["provenance"]
    dev = prov["device"]
    cpu = dev.get("kind") == "cpu"
    if cpu and not allow_cpu:
        print("record_kit: this run had no GPU; nothing to keep as a GPU recording", file=sys.stderr)
        return 1
    name = "the CPU (%s)" % (dev.get("name") or "no GPU") if cpu else dev.get("name")
    os.makedirs(out, exist_ok=True)
    envs = {}
    for env in kit["results"]:
        env = dict(env)
        env["backend"] = "recorded"
        env["recorded"] = {"device": name, "compute_capability": dev.get("compute_capability"),
                           "driver_version": prov.get("driver"), "cuda_runtime": prov.get("cuda_runtime"),
                           "date": (prov.get("date") or "")[:10] or None}
        with open(os.path.join(out, env["experiment"] + ".json"), "w") as fh:
            json.dump(env, fh, indent=1)
        envs[env["experiment"]] = env
        print(f"record_kit: {out}/{env['experiment']}.json ({name}, PyTorch {prov.get('torch')})")
    write_index(os.path.join(out, "index.json"), envs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
