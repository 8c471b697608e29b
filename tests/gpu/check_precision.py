#!/usr/bin/env python3
"""GPU check for `precision` (needs a usable NVIDIA GPU, Ampere or newer for
the tensor-core checks): cuBLAS FP32, TF32, BF16 and FP16 matmuls. Asserts:
the run validates; at N >= 4096 TF32, BF16 and FP16 beat FP32; BF16's max
relative error < 2e-2, TF32's and FP16's < 5e-3 at K = N; FP32 never counts
as tensor cores; FP16 gradients underflow without loss scaling and not with
it, while BF16's do not. FP16 is skipped, with the reason, while the GPU side
does not measure it yet.
Usage: python3 tests/gpu/check_precision.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402

t = gpulib.Tap("precision")
rc, env = gpulib.run("precision", max_size=8192, samples=5, train_steps=200)
t.check(rc == 0 and "error" not in env, "an 8192 run succeeds", json.dumps(env.get("error")))
if rc == 0 and "error" not in env:
    m = env["metrics"]
    t.check(env.get("validated") is True, "every precision within its error bound", json.dumps({k: v for k, v in m.items() if "rel_err" in k}))
    t.check(m["fp32_max_rel_err"] < 1e-4, "FP32 max rel err < 1e-4", m["fp32_max_rel_err"])
    t.check(m.get("tf32_tensor_cores") == 1, "the GPU has TF32 tensor cores (Ampere or newer)", m.get("tf32_tensor_cores"))
    t.check(m["tf32_max_rel_err"] < 5e-3, "TF32 max rel err < 5e-3", m["tf32_max_rel_err"])
    t.check("bf16_max_rel_err" in m and m["bf16_max_rel_err"] < 2e-2, "BF16 max rel err < 2e-2", m.get("bf16_max_rel_err"))
    t.check(m["tf32_max_rel_err"] > m["fp32_max_rel_err"], "TF32 is less exact than FP32")
    # The fp32 check of timing/crossover (8 * 2^-24 * sqrt(N) of the RMS) must reject a TF32 result.
    t.check(m["tf32_max_rel_err"] > 8 * 2 ** -24 * 8192 ** 0.5, "a TF32 result would fail the FP32 validation",
            m["tf32_max_rel_err"])
    t.check(m.get("fp32_tensor_cores") == 0, "FP32 is not counted as running on tensor cores", m.get("fp32_tensor_cores"))
    has_fp16 = any(s["id"] == "tflops_fp16" for s in env["series"])
    tf = {p: dict((int(x), y) for x, y in next(s["points"] for s in env["series"] if s["id"] == "tflops_" + p))
          for p in ("fp32", "tf32", "bf16")}
    for n in (4096, 8192):
        t.check(tf["tf32"][n] > 1.2 * tf["fp32"][n], "TF32 beats FP32 at N = %d" % n, "%.1f vs %.1f" % (tf["tf32"][n], tf["fp32"][n]))
        t.check(tf["bf16"][n] > 1.2 * tf["fp32"][n], "BF16 beats FP32 at N = %d" % n, "%.1f vs %.1f" % (tf["bf16"][n], tf["fp32"][n]))
    t.check(has_fp16, "the GPU side measured FP16 (tflops_fp16)")
    if has_fp16:
        f16 = dict((int(x), y) for x, y in next(s["points"] for s in env["series"] if s["id"] == "tflops_fp16"))
        for n in (4096, 8192):
            t.check(f16[n] > 1.2 * tf["fp32"][n], "FP16 beats FP32 at N = %d" % n, "%.1f vs %.1f" % (f16[n], tf["fp32"][n]))
        t.check(m.get("fp16_tensor_cores") == 1, "FP16 ran on the tensor cores", m.get("fp16_tensor_cores"))
        t.check(m["fp16_max_rel_err"] < 5e-3, "FP16 max rel err < 5e-3", m["fp16_max_rel_err"])
    t.check(m["train_fp16_flushed_pct"] > 1 and m["train_bf16_flushed_pct"] < 0.01,
            "FP16 gradients underflow without loss scaling, BF16's do not",
            "%g / %g" % (m["train_fp16_flushed_pct"], m["train_bf16_flushed_pct"]))
    t.check(len(env["findings"]) >= 5, "findings are written")

rc, env = gpulib.run("precision", max_size=512, samples=3, train_steps=50, loss_scale=True)
t.check(rc == 0 and env.get("metrics", {}).get("train_fp16_flushed_pct", 100) < 0.5,
        "loss scaling keeps FP16 gradients from flushing", json.dumps(env.get("metrics", env))[:300])

rc, env = gpulib.run("precision", max_size=16384)
t.check(rc != 0 and env.get("error", {}).get("param") == "max_size", "an oversized max_size is refused", json.dumps(env)[:200])

sys.exit(t.done())
