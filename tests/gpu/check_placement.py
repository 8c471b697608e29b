#!/usr/bin/env python3
"""GPU check of `placement`: real copies and a cuBLAS linear layer agree with
the CPU reference; a field left on the host is caught before any kernel
runs, as a result (not an error) naming the field and both devices.
Usage: python3 tests/gpu/check_placement.py BUILD_DIR (prints TAP)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("placement")
rc, env = gpulib.run("placement", batch=256, features=768, classes=3)
m = env.get("metrics", {})
d = env.get("details", {})
t.check(rc == 0 and env.get("backend") == "cuda", "all-on-GPU run succeeds on the GPU", env.get("error", ""))
t.check(env.get("validated") is True, "output matches the CPU reference", env.get("max_abs_err"))
t.check(env.get("max_abs_err", 1) <= 1e-3, "max_abs_err <= 1e-3", env.get("max_abs_err"))
t.check(m.get("preflight_ok") == 1 and m.get("tensors_on_gpu") == 5, "every tensor on cuda:0", m)
t.check(d.get("output", {}).get("shape") == [256, 3] and d.get("output", {}).get("device") == "cuda:0",
        "output is 256x3 on cuda:0", d.get("output"))
t.check(m.get("copy_ms", 0) > 0 and m.get("forward_ms", 0) > 0, "copies and layer were timed", m)
t.check(d.get("output", {}).get("counted") == 224, "mask kept 7 of every 8 samples", d.get("output"))

rc, env = gpulib.run("placement", move_labels=False)
m = env.get("metrics", {})
pf = env.get("details", {}).get("preflight", {})
msg = pf.get("message") or ""
t.check(rc == 0 and "error" not in env, "a stray field is a result, not an error", env.get("error", ""))
t.check(m.get("preflight_ok") == 0 and m.get("kernels_run") == 0, "preflight failed before any kernel", m)
t.check(pf.get("field") == "labels" and "cpu" in msg and "cuda:0" in msg, "message names labels, cpu and cuda:0", msg)
t.check("validated" not in env, "nothing to validate when nothing ran", env.get("validated"))

rc, env = gpulib.run("placement", model_on_gpu=False, move_features=False, move_mask=False, move_labels=False)
t.check(rc == 0 and env.get("details", {}).get("output", {}).get("device") == "cpu",
        "nothing moved: the layer runs on the CPU", env.get("details", {}).get("output"))

sys.exit(t.done())
