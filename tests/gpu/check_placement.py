#!/usr/bin/env python3
"""GPU check of `placement`: real copies and a cuBLAS linear layer agree with
the CPU reference; a field left on the host is caught before any kernel
runs, as a result (not an error) naming the field and both devices.
Usage: python3 tests/gpu/check_placement.py BUILD_DIR (prints TAP)."""
import json
import subprocess
import sys

BIN = (sys.argv[1] if len(sys.argv) > 1 else "build") + "/bin/gpulab"
results = []


def run(**params):
    args = [BIN, "run", "placement", "--backend", "cuda", "--json"]
    args += ["--%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        return p.returncode, {"raw": p.stdout + p.stderr}


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


rc, env = run(batch=256, features=768, classes=3)
m = env.get("metrics", {})
d = env.get("details", {})
check(rc == 0 and env.get("backend") == "cuda", "all-on-GPU run succeeds on the GPU", env.get("error", ""))
check(env.get("validated") is True, "output matches the CPU reference", env.get("max_abs_err"))
check(env.get("max_abs_err", 1) <= 1e-3, "max_abs_err <= 1e-3", env.get("max_abs_err"))
check(m.get("preflight_ok") == 1 and m.get("tensors_on_gpu") == 5, "every tensor on cuda:0", m)
check(d.get("output", {}).get("shape") == [256, 3] and d.get("output", {}).get("device") == "cuda:0",
      "output is 256x3 on cuda:0", d.get("output"))
check(m.get("copy_ms", 0) > 0 and m.get("forward_ms", 0) > 0, "copies and layer were timed", m)
check(d.get("output", {}).get("counted") == 224, "mask kept 7 of every 8 samples", d.get("output"))

rc, env = run(move_labels=False)
m = env.get("metrics", {})
pf = env.get("details", {}).get("preflight", {})
msg = pf.get("message") or ""
check(rc == 0 and "error" not in env, "a stray field is a result, not an error", env.get("error", ""))
check(m.get("preflight_ok") == 0 and m.get("kernels_run") == 0, "preflight failed before any kernel", m)
check(pf.get("field") == "labels" and "cpu" in msg and "cuda:0" in msg, "message names labels, cpu and cuda:0", msg)
check("validated" not in env, "nothing to validate when nothing ran", env.get("validated"))

rc, env = run(model_on_gpu=False, move_features=False, move_mask=False, move_labels=False)
check(rc == 0 and env.get("details", {}).get("output", {}).get("device") == "cpu",
      "nothing moved: the layer runs on the CPU", env.get("details", {}).get("output"))

for i, (ok, what, detail) in enumerate(results, 1):
    print("%s %d - placement: %s%s" % ("ok" if ok else "not ok", i, what, "" if ok else "  # got %r" % (detail,)))
sys.exit(0 if all(r[0] for r in results) else 1)
