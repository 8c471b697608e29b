#!/usr/bin/env python3
"""GPU check of `train_step`: the first step's loss and gradients match the
CPU reference, the loss falls, and reading the loss every step costs more
host time than reading it every N steps.
Usage: python3 tests/gpu/check_train_step.py BUILD_DIR (prints TAP)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("train_step")
rc, env = gpulib.run("train_step", batch=1024, features=256, classes=10, steps=300, read_every=25)
m = env.get("metrics", {})
series = {s["id"]: s["points"] for s in env.get("series", [])}
t.check(rc == 0 and env.get("backend") == "cuda", "training runs on the GPU", env.get("error", ""))
t.check(env.get("validated") is True, "first step's loss and gradients match the CPU", env.get("max_abs_err"))
t.check(env.get("max_abs_err", 1) <= 1e-4, "max_abs_err <= 1e-4", env.get("max_abs_err"))
t.check(abs(m.get("first_loss", 0) - math.log(10)) < 0.05, "first loss is about ln(10)", m.get("first_loss"))
t.check(m.get("final_loss", 9) < 0.5 * m.get("first_loss", 0), "the loss fell by half or more", m)
t.check(len(series.get("loss", [])) == 300, "a loss point per step", len(series.get("loss", [])))
t.check(m.get("syncs_every_step") == 300 and m.get("syncs_every_n") == 12, "300 reads against 12", m)
t.check(m.get("every_step_ms", 0) > m.get("every_n_ms", 1e9), "reading every step costs more host time",
        (m.get("every_step_ms"), m.get("every_n_ms")))
t.check(m.get("cost_per_read_us", 0) > 1, "each read costs microseconds of host time", m.get("cost_per_read_us"))
t.check(m.get("gpu_step_us", 0) > 0, "the GPU's own step time was measured", m.get("gpu_step_us"))
# Held until queued, the GPU's own time per step cannot exceed the host's per-step time of the fast mode.
t.check(m.get("gpu_step_us", 1e9) <= 1.05 * m.get("per_step_every_n_us", 0), "GPU step time <= host step time",
        (m.get("gpu_step_us"), m.get("per_step_every_n_us")))

sys.exit(t.done())
