#!/usr/bin/env python3
"""gpulab measurement kit: measure your own GPU (or CPU) with PyTorch and
bring the numbers back to gpulab.

    python3 measure.py --out run.json            # everything this machine can run
    python3 measure.py --out run.json --quick    # smaller sizes, a minute or two
    python3 measure.py --preflight               # only check the environment
    python3 measure.py --plan plan.json          # what `gpulab plan --json` predicted, trained and measured

It needs PyTorch and the standard library, nothing else: Python 3.8 or
newer; PyTorch 1.13 or newer with CUDA, ROCm or on the CPU; on a Mac with
Apple silicon PyTorch 2.0 or newer (MPS events from 2.1). It first checks
the environment (PyTorch and its CUDA/HIP runtime, the driver, the GPU's
architecture against the build's, bf16, MPS and macOS) and says what is
wrong and how to fix it, then runs the PyTorch counterpart of each of
gpulab's experiments the device supports, the way the lessons teach:
warm-up first, CUDA/MPS events or a synchronize around host timers,
medians of several samples with their spread, random normal inputs. The
file it writes (at most 1 MiB) holds where it ran and one result envelope
per experiment, with "backend": "pytorch"; `gpulab compare FILE` (or the
page) puts it beside the simulator's prediction. The profiler trace of a
few training steps goes to a file of its own (--trace), for gpulab doctor.

Nothing is sent anywhere: the file stays where you write it.
"""
import contextlib
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

KIT_VERSION = "1.0"
SCHEMA = 1
MAX_FILE_BYTES = 1 << 20  # gpulab compare and the page refuse a bigger file

# ---- explain's set-up diagnoses ---------------------------------------------
# Generated from gpulab's diagnosis table (lab/explain/explain_diag.c) by
# tools/kit_diagnoses.py; tests/kit/run.sh fails when it differs, so the
# kit's words and `gpulab explain`'s are one text. Do not edit by hand.
# The rows the preflight can reach (decide below returns no other).
DIAGNOSIS_IDS = ("env_consistent", "env_cpu_wheel_on_gpu", "env_runtime_newer_than_driver", "env_ptx_newer_than_driver",
                 "env_gpu_older_than_wheel", "env_arch_not_in_wheel", "env_rocm_gfx_unsupported", "env_mps_unusable",
                 "env_bf16_emulated", "setup_no_driver", "env_cuda_unavailable")
# BEGIN DIAGNOSES
DIAGNOSES = {
 "env_consistent": {
  "title": "The environment's layers agree",
  "text": "PyTorch {torch}, CUDA build {cuda_build}, CUDA available: {cuda_available}. Nothing in this report contradicts itself; if something fails, the cause is elsewhere: paste the error itself.",
  "steps": [
   "Paste the error message you got, with this report."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_cpu_wheel_on_gpu": {
  "title": "A CPU-only PyTorch on a machine with a GPU",
  "text": "PyTorch {torch} was built without CUDA (\"CUDA used to build PyTorch: None\"), yet this machine has an NVIDIA driver or GPU. The wheel is the layer at fault, not the driver.",
  "steps": [
   "Install a CUDA build of PyTorch (pytorch.org's selector gives the pip command with a cu12x index URL).",
   "Then check again: torch.cuda.is_available() should print True."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_runtime_newer_than_driver": {
  "title": "PyTorch's CUDA runtime is newer than the driver",
  "text": "PyTorch {torch} uses CUDA {cuda_build}, but driver {driver} is older than that CUDA version needs. The driver must be at least as new as the runtime.",
  "steps": [
   "Update the NVIDIA driver.",
   "Or install a PyTorch build for an older CUDA that this driver supports."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_ptx_newer_than_driver": {
  "title": "The driver is older than the CUDA this PyTorch was built with",
  "text": "Driver {driver} runs CUDA up to {driver_cuda}, and PyTorch {torch} was built with CUDA {cuda_build}. CUDA's minor version compatibility lets the build's ready-compiled kernels run on it, but code compiled for the GPU while the program runs, from PTX (torch.compile and Triton kernels, custom extensions, numba), is refused by the driver: the error names an unsupported PTX version, or PTX compiled with an unsupported toolchain. Layer: driver vs runtime.",
  "steps": [
   "Compare nvidia-smi's \"CUDA Version\" with torch.version.cuda: the first should be at least the second.",
   "Install the PyTorch build for the CUDA version the driver runs (pip install torch --index-url https://download.pytorch.org/whl/cu121 for CUDA 12.1, cu124 for 12.4), or update the driver (on Colab and Kaggle you cannot: pick the matching build).",
   "Plain PyTorch operations on a GPU the build has kernels for still run; gpulab's measurements use only those."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_gpu_older_than_wheel": {
  "title": "The GPU is older than this PyTorch supports",
  "text": "The GPU[ ({gpu})][ ({gpu_name})][, compute capability {gpu_cc}] is older than every architecture this PyTorch[ {torch}] has CUDA kernels for[ (it carries {supported_sms})]: none of its operations can run on it. Kepler cards (K80, GTX 7xx) lost their kernels with PyTorch 2, Pascal (P100, sm_60) with the builds for CUDA 12.8.",
  "steps": [
   "On Kaggle, choose the T4 (or L4) accelerator instead of the P100: current PyTorch builds dropped Pascal (sm_60).",
   "Use an older PyTorch release that still supports the GPU, or build PyTorch from source for its architecture.",
   "Or use a newer GPU."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_arch_not_in_wheel": {
  "title": "This PyTorch has no kernels for this GPU's architecture",
  "text": "The GPU ({gpu}) is {gpu_arch}; PyTorch {torch} carries kernels for {arch_list} only. torch.cuda.is_available() still answers True and memory can be allocated, but the first real operation fails: CUDA finds no kernel image for the device. Layer: architecture.",
  "steps": [
   "On Kaggle, choose the T4 (or L4) accelerator instead of the P100: current PyTorch builds dropped Pascal (sm_60).",
   "Or install a PyTorch build whose torch.cuda.get_arch_list() includes your GPU's sm_XX: an older one for an old GPU (builds for CUDA 12.6 and earlier still carry sm_50 and sm_60), a newer one for a new GPU."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_rocm_gfx_unsupported": {
  "title": "This ROCm PyTorch has no kernels for this AMD GPU",
  "text": "The GPU ({gpu}) is {gpu_arch}; PyTorch {torch} (ROCm {hip_build}) carries kernels for {arch_list} only, so its operations fail: HIP reports an invalid device function. Layer: architecture.",
  "steps": [
   "Many consumer Radeon cards run the kernels of a supported sibling: set HSA_OVERRIDE_GFX_VERSION=10.3.0 for an RDNA2 card (gfx103x) or 11.0.0 for RDNA3 (gfx110x) before Python starts.",
   "Or install a PyTorch ROCm build whose torch.cuda.get_arch_list() lists your gfx target.",
   "Check AMD's ROCm compatibility list for your card and ROCm version."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_mps_unusable": {
  "title": "PyTorch cannot use this Mac's GPU (MPS) for honest timings",
  "text": "On this Mac (macOS {macos}) PyTorch {torch} reports MPS available: {mps_available}. The MPS backend needs Apple silicon or a Metal GPU, macOS 12.3 or newer (recent PyTorch releases ask for 14.0) and PyTorch 1.12 or newer; timing work on it honestly needs torch.mps.synchronize (PyTorch 2.0) and MPS events (2.1). Layer: the wheel and the OS.",
  "steps": [
   "Update macOS (Apple menu > System Settings > General > Software Update).",
   "Update PyTorch: pip install -U torch (2.1 or newer for MPS events).",
   "Check: python -c \"import torch; print(torch.backends.mps.is_available())\" should print True.",
   "PYTORCH_ENABLE_MPS_FALLBACK=1 (run what MPS lacks on the CPU) only works when set before import torch."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_bf16_emulated": {
  "title": "bf16 on this GPU is emulated, not native",
  "text": "torch.cuda.is_bf16_supported() answers True on this {gpu} ({gpu_arch}), yet bfloat16 tensor cores came with compute capability 8.0 (Ampere): here bf16 matmuls are emulated, slower than fp16 and often slower than fp32. The answer says a bf16 tensor can be made, not that bf16 is fast. Layer: architecture.",
  "steps": [
   "Train in float16 on this GPU: torch.autocast(\"cuda\", dtype=torch.float16) with torch.cuda.amp.GradScaler.",
   "Newer PyTorch asks the hardware itself with torch.cuda.is_bf16_supported(including_emulation=False).",
   "Keep bf16 for compute capability 8.0 and newer (A100, L4, RTX 30xx and later)."
  ],
  "lesson": "02-cuda-toolbox",
  "section": "precision"
 },
 "setup_no_driver": {
  "title": "No NVIDIA driver found",
  "text": "PyTorch could not find the NVIDIA driver: either the machine has no NVIDIA GPU, or the driver is not installed or not loaded (in a container: the GPU was not passed in). Layer: the driver.",
  "steps": [
   "Run nvidia-smi: if it fails too, install or load the driver (on a cluster: ask for a GPU node).",
   "In Docker, start the container with --gpus all (NVIDIA Container Toolkit).",
   "Then run lesson 1's two checks again."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 },
 "env_cuda_unavailable": {
  "title": "CUDA build, driver present, yet CUDA is not available",
  "text": "PyTorch {torch} is a CUDA {cuda_build} build and a driver is reported, but \"Is CUDA available: False\": the runtime view fails while the driver view works. Common causes: CUDA_VISIBLE_DEVICES hides the GPUs, the GPU is in a state the runtime rejects, or the process cannot open the device files.",
  "steps": [
   "Print CUDA_VISIBLE_DEVICES (an empty value hides every GPU).",
   "Run python -c \"import torch; torch.zeros(1).cuda()\" to see the runtime's own error, and paste it here."
  ],
  "lesson": "01-cuda-intuition",
  "section": "two-checks"
 }
}
# END DIAGNOSES

# ---- the preflight's decisions ----------------------------------------------
# Each finding is decided from a plain dict of facts (gather_facts reads
# them from this machine; the tests give recorded ones), and printed with
# the facts it was decided on, in the field names of PyTorch's collect_env
# (and a few of the kit's own), so that pasting a finding into
# `gpulab explain` reaches the same diagnosis by the same rules
# (lab/explain/explain_env.c).

# The oldest Linux driver of each CUDA version, from NVIDIA's CUDA Toolkit
# release notes ("CUDA Toolkit and Corresponding Driver Versions"). Before
# 11 a runtime needs its own driver; from 11 on any minor version runs on
# the major version's first driver (minor version compatibility), but PTX
# compiled by a newer toolkit than the driver's is refused
# (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
DRIVER_FOR_CUDA = [
    ((10, 0), (410, 48)), ((10, 1), (418, 39)), ((10, 2), (440, 33)),
    ((11, 0), (450, 51, 5)), ((11, 1), (455, 23)), ((11, 2), (460, 27, 3)), ((11, 3), (465, 19, 1)),
    ((11, 4), (470, 42, 1)), ((11, 5), (495, 29, 5)), ((11, 6), (510, 39, 1)), ((11, 7), (515, 43, 4)),
    ((11, 8), (520, 61, 5)), ((12, 0), (525, 60, 13)), ((12, 1), (530, 30, 2)), ((12, 2), (535, 54, 3)),
    ((12, 3), (545, 23, 6)), ((12, 4), (550, 54, 14)), ((12, 5), (555, 42, 2)), ((12, 6), (560, 28, 3)),
    ((12, 8), (570, 26)), ((12, 9), (575, 51, 3)), ((13, 0), (580, 65, 6)),
]
# Minor version compatibility: the first driver of each major version.
DRIVER_FOR_MAJOR = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580, 65, 6)}
KEPLER = ("K80", "K40", "Tesla K", "GTX 7", "GT 7")


def _version(text):
    """'12.4' / '550.54.15' / '2.5.1+cu124' -> tuple of ints; () when not a version."""
    m = re.match(r"\s*(\d+(?:\.\d+)*)", text or "")
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def driver_cuda(driver):
    """The newest CUDA version this Linux driver runs, as 'major.minor', or None."""
    d = _version(driver)
    if not d:
        return None
    best = None
    for cuda, need in DRIVER_FOR_CUDA:
        if d >= need:
            best = cuda
    return "%d.%d" % best if best else None


def driver_too_old(cuda_build, driver):
    """True when the driver cannot run this CUDA runtime at all."""
    b, d = _version(cuda_build), _version(driver)
    if len(b) < 1 or not d:
        return False
    if b[0] >= 11:
        need = DRIVER_FOR_MAJOR.get(b[0])
        return bool(need) and d < need
    for cuda, need in DRIVER_FOR_CUDA:
        if cuda == b[:2]:
            return d < need
    return False


def arch_supported(gpu_arch, arch_list):
    """Whether a build for arch_list runs on gpu_arch ('sm_60', 'gfx1031').
    CUDA: a cubin of the same major version and a lower or equal minor runs,
    and PTX (compute_XY) of a lower or equal version is compiled at load;
    ROCm: the gfx target itself must be there. None when unknown."""
    if not gpu_arch or not arch_list:
        return None
    if gpu_arch.startswith("gfx"):
        return gpu_arch.split(":")[0] in [a.split(":")[0] for a in arch_list]
    m = re.match(r"sm_(\d+)(\d)$", gpu_arch)
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    for a in arch_list:
        k = re.match(r"(sm|compute)_(\d+)(\d)[a-z]?$", a)
        if not k:
            continue
        am, an = int(k.group(2)), int(k.group(3))
        if k.group(1) == "sm" and am == major and an <= minor:
            return True
        if k.group(1) == "compute" and (am, an) <= (major, minor):
            return True
    return False


def _is_cpu_wheel(f):
    return bool(f.get("torch")) and not f.get("cuda_build") and not f.get("hip_build")


def decide(f):
    """The preflight's findings for a dict of facts, most serious first:
    a list of (diagnosis id, blocking, fields printed with it). blocking: the
    GPU cannot be used, so the kit runs on the CPU."""
    out = []
    torch_major = (_version(f.get("torch")) or (0,))[0]
    gpu = f.get("gpu") or ""
    if _is_cpu_wheel(f) and (f.get("driver") or gpu) and not f.get("macos"):
        out.append(("env_cpu_wheel_on_gpu", True, ["torch", "cuda_build", "gpu", "driver"]))
    cb = f.get("cuda_build")
    if cb and f.get("driver") and driver_too_old(cb, f["driver"]):
        out.append(("env_runtime_newer_than_driver", True, ["torch", "cuda_build", "driver"]))
    elif cb and f.get("driver") and driver_cuda(f["driver"]) and f.get("cuda_available") is not False and \
            _version(driver_cuda(f["driver"])) < _version(cb)[:2]:  # moot when CUDA is not available at all
        out.append(("env_ptx_newer_than_driver", False, ["torch", "cuda_build", "driver"]))
    if cb and any(k in gpu for k in KEPLER) and torch_major >= 2:
        out.append(("env_gpu_older_than_wheel", True, ["torch", "cuda_build", "gpu"]))
    elif arch_supported(f.get("gpu_arch"), f.get("arch_list")) is False:
        rocm = (f.get("gpu_arch") or "").startswith("gfx")
        out.append(("env_rocm_gfx_unsupported" if rocm else "env_arch_not_in_wheel", True,
                    ["torch", "hip_build" if rocm else "cuda_build", "gpu", "gpu_arch", "arch_list"]))
    if f.get("macos") and (f.get("mps_available") is False or (f.get("mps_available") and torch_major < 2)):
        out.append(("env_mps_unusable", True, ["torch", "cuda_build", "macos", "mps_built", "mps_available"]))
    sm = re.match(r"sm_(\d+)", f.get("gpu_arch") or "")
    if sm and int(sm.group(1)) < 80 and f.get("bf16_supported") is True:  # an sm_XY architecture: a CUDA build
        out.append(("env_bf16_emulated", False, ["torch", "gpu", "gpu_arch", "bf16_supported"]))
    if (cb or f.get("hip_build")) and f.get("cuda_available") is False and not any(b for _, b, _ in out):
        if not f.get("driver") and not gpu and not f.get("hip_build"):
            out.append(("setup_no_driver", True, ["torch", "cuda_build", "cuda_available"]))
        else:
            out.append(("env_cuda_unavailable", True, ["torch", "cuda_build", "hip_build", "cuda_available", "gpu", "driver"]))
    if not out:
        out.append(("env_consistent", False, ["torch", "cuda_build", "hip_build", "cuda_available", "gpu", "driver"]))
    return out


def _field_lines(f, keys):
    """The facts as collect_env prints them (and the kit's own fields)."""
    lines = []
    for k in keys:
        v = f.get(k)
        if k == "torch":
            lines.append("PyTorch version: %s" % (v or "not reported"))
        elif k == "cuda_build":
            lines.append("CUDA used to build PyTorch: %s" % (v or "None"))
        elif k == "hip_build":
            lines.append("ROCM used to build PyTorch: %s" % (v or "N/A"))
        elif k == "cuda_available" and v is not None:
            lines.append("Is CUDA available: %s" % v)
        elif k == "gpu" and v:
            lines.append("GPU models and configuration: GPU 0: %s" % v)
        elif k == "driver" and v:
            lines.append("Nvidia driver version: %s" % v)
        elif k == "macos" and v:
            lines.append("OS: macOS %s (%s)" % (v, f.get("machine") or "arm64"))
        elif k == "gpu_arch" and v:
            lines.append("GPU architecture: %s" % v)
        elif k == "arch_list" and v:
            lines.append("torch.cuda.get_arch_list(): %s" % " ".join(v))
        elif k == "bf16_supported" and v is not None:
            lines.append("torch.cuda.is_bf16_supported(): %s" % v)
        elif k == "mps_built" and v is not None:
            lines.append("MPS built: %s" % v)
        elif k == "mps_available" and v is not None:
            lines.append("MPS available: %s" % v)
    return lines


def _fill(text, facts):
    """A diagnosis text with its {fact} holes filled, as explain does
    (lab/explain/explain_write.c): nothing is printed for a fact that is not
    there: "[...]" is left out whole when a hole inside it is empty ("[?key
    ...]": unless the fact is true), and a sentence whose hole outside such a
    part is empty is left out."""
    def value(key):
        v = facts.get(key)
        if isinstance(v, list):
            v = " ".join(v)
        return "" if v in (None, "") else str(v)

    out, part, sentence = [], None, 0
    part_empty = sentence_empty = False
    i = 0
    while i < len(text):
        m = re.match(r"\{([a-z_.]{1,38})\}", text[i:])
        c = text[i]
        if m:
            v = value(m.group(1))
            if not v:
                if part is not None:
                    part_empty = True
                else:
                    sentence_empty = True
            out.append(v)
            i += m.end()
            continue
        if c == "[" and part is None:
            part, part_empty = len(out), False
            if text[i + 1:i + 2] == "?":  # "[?key ...]": shown when the fact is true
                key = re.match(r"[^ \]]*", text[i + 2:]).group(0)
                part_empty = facts.get(key) in (None, False, "")
                i += 1 + len(key)
        elif c == "]" and part is not None:
            if part_empty:
                del out[part:]
            part = None
        else:
            out.append(c)
            if part is None and c in ".!" and (i + 1 == len(text) or text[i + 1] == " "):
                if sentence_empty:
                    del out[sentence:]  # and its space: the next sentence starts where it did
                elif i + 1 < len(text):
                    out.append(" ")
                i += 1 if i + 1 < len(text) else 0
                sentence, sentence_empty = len(out), False
        i += 1
    if sentence_empty:
        del out[sentence:]
    return "".join(out).rstrip(" ")


def _steps(steps, f):
    """The steps for this machine: "@cuda@none ..." is for an NVIDIA GPU or a machine that shows
    none, "@kaggle ..." for Kaggle; a step without tags is for every one (explain_write.c)."""
    platform = "rocm" if f.get("hip_build") else "mac" if f.get("mps_built") or f.get("mps_available") else \
        "cuda" if f.get("cuda_build") or f.get("cuda_available") else "none"
    out = []
    for s in steps:
        tags = re.match(r"((?:@[a-z]+)*) *", s)
        names = tags.group(1).split("@")[1:]
        if not names or platform in names:
            out.append(s[tags.end():])
    return out


def _hole_facts(f):
    h = dict(f)
    h["driver_cuda"] = driver_cuda(f.get("driver")) if f.get("driver") else None
    h["cuda_build"] = f.get("cuda_build") or "None"
    h["hip_build"] = f.get("hip_build") or "N/A"
    for k in ("cuda_available", "mps_available", "mps_built", "bf16_supported"):
        if f.get(k) is not None:
            h[k] = str(f[k])
    return h


def preflight(f):
    """Findings for a dict of facts: [{id, blocking, title, text, steps, evidence}]."""
    findings = []
    holes = _hole_facts(f)
    for diag, blocking, keys in decide(f):
        d = DIAGNOSES.get(diag) or {"title": diag, "text": "", "steps": []}
        findings.append({"id": diag, "blocking": blocking, "title": d["title"], "text": _fill(d["text"], holes),
                         "steps": _steps(d["steps"], f), "evidence": _field_lines(f, keys),
                         "lesson": d.get("lesson"), "section": d.get("section")})
    return findings


def finding_text(fd):
    """One finding as printed: the facts, then what they mean and what to do."""
    out = ["%s  [%s]" % (fd["title"], fd["id"])]
    out += ["    " + line for line in fd["evidence"]]
    if fd["text"]:
        out.append("  " + fd["text"])
    for i, s in enumerate(fd["steps"], 1):
        out.append("  %d) %s" % (i, s))
    return "\n".join(out)


def device_choice(f, findings):
    """'cuda', 'rocm', 'mps' or 'cpu', and why when it is the CPU."""
    if any(fd["blocking"] for fd in findings):
        return "cpu", "; ".join(fd["title"] for fd in findings if fd["blocking"])
    if f.get("cuda_available"):
        return ("rocm" if f.get("hip_build") else "cuda"), None
    if f.get("mps_available") and (_version(f.get("torch")) or (0,))[0] >= 2:
        return "mps", None
    return "cpu", "no GPU that PyTorch can use on this machine (no CUDA, ROCm or MPS device)"


# ---- reading the facts of this machine --------------------------------------

def _run(cmd, timeout=10):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           universal_newlines=True)
        return r.stdout if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _nvidia_smi():
    """(driver version, driver's CUDA version, GPU count, (PCIe generation,
    lanes) of GPU 0's link at its best) from nvidia-smi, or Nones."""
    out = _run(["nvidia-smi", "--query-gpu=driver_version,pcie.link.gen.max,pcie.link.width.max",
                "--format=csv,noheader,nounits"])
    driver, count, link = None, None, None
    if out:
        rows = [r for r in out.strip().splitlines() if r.strip()]
        count = len(rows)
        if rows:
            cells = [c.strip() for c in rows[0].split(",")]
            driver = cells[0]
            if len(cells) == 3 and cells[1].isdigit() and cells[2].isdigit():
                link = (int(cells[1]), int(cells[2]))
    head = _run(["nvidia-smi"]) if out else None
    m = re.search(r"CUDA Version:\s*([0-9.]+)", head or "")
    if driver is None:
        try:  # the kernel module answers even without nvidia-smi
            with open("/proc/driver/nvidia/version") as fh:
                m2 = re.search(r"Kernel Module\s+([0-9.]+)", fh.read())
                driver = m2.group(1) if m2 else None
        except OSError:
            pass
    return driver, (m.group(1) if m else None), count, link


def pcie_nominal_gbps(gen, lanes):
    """One-way nominal rate of a PCIe link, 1e9 B/s: 8, 16, 32 GT/s a lane for
    Gen3, 4, 5 with 128b/130b encoding (lab/sim/host_link.c's formula)."""
    return {3: 8.0, 4: 16.0, 5: 32.0}.get(gen, 8.0 if gen < 3 else 64.0) * 128 / 130 / 8 * lanes


def detect_platform():
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG") or os.environ.get("COLAB_GPU"):
        return "Colab"
    if os.environ.get("KAGGLE_KERNEL_RUN_TYPE") or os.environ.get("KAGGLE_URL_BASE"):
        return "Kaggle"
    return None


def gather_facts(torch):
    """Everything the preflight decides on, read from this machine."""
    f = {"torch": torch.__version__, "cuda_build": getattr(torch.version, "cuda", None),
         "hip_build": getattr(torch.version, "hip", None), "os": platform.system(),
         "machine": platform.machine(), "python": platform.python_version(), "platform": detect_platform()}
    if f["os"] == "Darwin":
        f["macos"] = platform.mac_ver()[0] or None
    f["driver"], f["driver_cuda_smi"], f["smi_gpu_count"], f["pcie_link"] = \
        _nvidia_smi() if f["os"] != "Darwin" else (None, None, None, None)
    try:
        f["cuda_available"] = bool(torch.cuda.is_available())
    except Exception as e:  # a broken driver raises here on some versions
        f["cuda_available"], f["cuda_error"] = False, str(e)[:300]
    f["device_count"] = torch.cuda.device_count() if f["cuda_available"] else 0
    if f["cuda_available"]:
        props = torch.cuda.get_device_properties(0)
        f["gpu"] = props.name
        f["memory_bytes"] = int(props.total_memory)
        f["sm_count"] = int(getattr(props, "multi_processor_count", 0) or 0)
        if f["hip_build"]:
            f["gpu_arch"] = (getattr(props, "gcnArchName", "") or "").split(":")[0] or None
        else:
            f["cc"] = "%d.%d" % (props.major, props.minor)
            f["gpu_arch"] = "sm_%d%d" % (props.major, props.minor)
        try:
            f["arch_list"] = list(torch.cuda.get_arch_list())
        except Exception:
            f["arch_list"] = None
        try:
            f["bf16_supported"] = bool(torch.cuda.is_bf16_supported())
        except Exception:
            f["bf16_supported"] = None
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and f["os"] == "Darwin":
        f["mps_built"] = bool(mps.is_built())
        f["mps_available"] = bool(mps.is_available())
    return f


# ---- the device, its clock and its synchronize ------------------------------

class Device:
    """Where the experiments run and how they are timed. api is torch.cuda
    (CUDA and ROCm), torch.mps or None (CPU); the tests put a stand-in that
    records every call in its place. hook, when set, is told where warm-ups
    end and samples begin, so a test can check the method."""

    def __init__(self, torch, kind, api, tdev, clock=time.perf_counter, hook=None):
        self.torch, self.kind, self.api, self.tdev = torch, kind, api, tdev
        self.clock, self.hook = clock, hook
        self.gpu = kind != "cpu"
        # torch.cuda.Event; torch.mps.event.Event from PyTorch 2.1 (before: a synchronize around the host clock)
        self._event = getattr(api, "Event", None) or getattr(getattr(api, "event", None), "Event", None)
        self.has_events = self._event is not None and (kind != "mps" or _version(torch.__version__)[:2] >= (2, 1))
        self.has_streams = kind in ("cuda", "rocm") and hasattr(api, "Stream")
        self.has_graphs = kind == "cuda" and hasattr(api, "CUDAGraph")
        self.has_memory_stats = kind in ("cuda", "rocm") and hasattr(api, "memory_allocated")
        self.can_pin = kind in ("cuda", "rocm")  # page-locked host memory needs a CUDA/ROCm build

    def pin(self, t):
        """t in page-locked host memory, where this device can have it."""
        return t.pin_memory() if self.can_pin else t

    def sync(self):
        if self.api is not None:
            self.api.synchronize()

    def event(self):
        return self._event(enable_timing=True)

    def mark(self, what, label):
        if self.hook:
            self.hook(what, label)


def summary(xs):
    """(median, IQR as % of the median) of samples."""
    xs = sorted(x for x in xs if x is not None and math.isfinite(x))
    if not xs:
        return 0.0, 0.0
    med = statistics.median(xs)
    if len(xs) < 4:
        return med, (100.0 * (xs[-1] - xs[0]) / med if med > 0 else 0.0)
    q = statistics.quantiles(xs, n=4) if hasattr(statistics, "quantiles") else [xs[len(xs) // 4], med, xs[3 * len(xs) // 4]]
    return med, (100.0 * (q[2] - q[0]) / med if med > 0 else 0.0)


def paired_difference(ds):
    """(median, low, high) of paired differences: the median and its 95 %
    interval from order statistics (ranks n/2 -+ 0.98 sqrt(n), no assumption
    about the noise's shape); with fewer than 6 pairs the interval is their
    whole range. An interval that holds 0 means the difference is not
    resolved: the noise between runs is larger than it."""
    xs = sorted(d for d in ds if d is not None and math.isfinite(d))
    if not xs:
        return 0.0, 0.0, 0.0
    n = len(xs)
    k = int(math.floor((n - 1.96 * math.sqrt(n)) / 2)) if n >= 6 else 0
    return statistics.median(xs), xs[max(0, k)], xs[min(n - 1, n - 1 - k)]


def _warm_up(dev, fn, warmup, label):
    """fn run warmup times, the device idle after; with warmup=0 the samples
    that follow are the cold ones, on purpose."""
    for _ in range(warmup):
        fn()
    dev.sync()
    if warmup:
        dev.mark("warmed", label)


def time_device(dev, fn, samples, warmup, label):
    """The device's time for fn, ms per sample: events around each call, or
    the host clock from a synchronize to the synchronize after it."""
    _warm_up(dev, fn, warmup, label)
    out = []
    for _ in range(samples):
        if dev.has_events:
            a, b = dev.event(), dev.event()
            dev.mark("sample" if warmup else "cold", label)
            a.record()
            fn()
            b.record()
            b.synchronize()
            out.append(a.elapsed_time(b))
        else:
            dev.sync()
            dev.mark("sample" if warmup else "cold", label)
            t0 = dev.clock()
            fn()
            dev.sync()
            out.append((dev.clock() - t0) * 1e3)
    return out


def time_host(dev, fn, samples, warmup, label, sync=True):
    """The host's time for fn, ms per sample, the device idle before each
    one; with sync=False the clock stops when fn returns, on purpose (the
    lessons' trap: the launches returned, the work did not finish)."""
    _warm_up(dev, fn, warmup, label)
    out = []
    for _ in range(samples):
        dev.sync()
        dev.mark(("sample" if sync else "nosync") if warmup else "cold", label)
        t0 = dev.clock()
        fn()
        if sync:
            dev.sync()
        out.append((dev.clock() - t0) * 1e3)
    dev.sync()
    return out


# ---- the envelope ------------------------------------------------------------

class Env:
    """One result envelope in gpulab's schema (docs/architecture.md)."""

    def __init__(self, experiment, device_name, params):
        self.d = {"experiment": experiment, "schema": SCHEMA, "backend": "pytorch",
                  "device": {"name": device_name, "profile": None}, "params": params, "metrics": {},
                  "series": [], "timeline": [], "findings": [],
                  "stats": {"samples": 0, "warmup": 0, "median_of": None, "iqr_pct": None}}

    def metric(self, key, value):
        if value is None or isinstance(value, bool):
            value = 1 if value else 0
        v = float(value)
        self.d["metrics"][key] = v if math.isfinite(v) else 0.0

    def series(self, sid, label, x_unit, y_unit, points, source=None):
        s = {"id": sid, "label": label, "x_unit": x_unit, "y_unit": y_unit,
             "points": [[float(x), float(y) if math.isfinite(float(y)) else 0.0] for x, y in points]}
        if source:
            s["source"] = source
        self.d["series"].append(s)

    def event(self, lane, label, start_us, end_us):
        self.d["timeline"].append({"lane": lane, "label": label, "start_us": float(start_us), "end_us": float(end_us)})

    def finding(self, text):
        self.d["findings"].append(text)

    def stats(self, samples, warmup, median_of, iqr_pct, method):
        self.d["stats"] = {"samples": samples, "warmup": warmup, "median_of": median_of,
                           "iqr_pct": iqr_pct if median_of else None, "method": method}

    def details(self):
        return self.d.setdefault("details", {})

    def not_measured(self, reasons):
        """Figures of gpulab's own envelope this run has no counterpart for, and why."""
        self.details().setdefault("not_measured", {}).update(reasons)

    def differs(self, how):
        """Figures measured otherwise than gpulab's kernels measure them, and how."""
        self.details().setdefault("differs", {}).update(how)


def fmt_ms(ms):
    if ms >= 100:
        return "%.0f ms" % ms
    if ms >= 1:
        return "%.2f ms" % ms
    return "%.1f µs" % (ms * 1e3)


def fmt_bytes(b):
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k:
            return "%.3g %s" % (b / k, unit)
    return "%d B" % b


def timing_method(dev):
    if dev.kind == "cpu":
        return "the host clock (time.perf_counter); the CPU runs each call to its end before it returns"
    if dev.has_events:
        return "%s events around each sample" % ("MPS" if dev.kind == "mps" else "CUDA")
    return "the host clock from torch.mps.synchronize() to the synchronize after the work (MPS events need PyTorch 2.1)"


# ---- the experiments ----------------------------------------------------------
# Each takes the device, the sizes (full or quick) and the torch module, and
# returns one envelope with the metric keys and series ids of gpulab's own
# run of the same experiment (lab/STEM.c), measured the PyTorch way.

def exp_device(torch, dev, facts, findings, sizes):
    on_gpu = dev.kind in ("cuda", "rocm")
    env = Env("device", facts.get("gpu") if dev.gpu else None, {"index": 0})
    total = free = None
    if on_gpu:
        try:
            free, total = dev.api.mem_get_info()
        except Exception:
            total = facts.get("memory_bytes")
    blocking = [fd for fd in findings if fd["blocking"]]
    first = blocking[0] if blocking else findings[0]
    usable = dev.gpu
    runtime_status = "ok" if usable else ("not_built" if _is_cpu_wheel(facts) else "error")
    gpu_row = lambda: {"index": 0, "name": facts.get("gpu"),  # noqa: E731
                       "compute_capability": facts.get("cc"), "sm_count": facts.get("sm_count") or None,
                       "memory_total_bytes": total, "memory_free_bytes": free}
    views = {
        "driver": {"source": "nvidia-smi" if facts.get("driver") else "none", "present": bool(facts.get("driver")),
                   "driver_version": facts.get("driver"), "cuda_version": facts.get("driver_cuda_smi"),
                   "device_count": facts.get("smi_gpu_count") or 0, "devices": [],
                   "error": None if facts.get("driver") else "nvidia-smi did not answer (no NVIDIA driver here)"},
        "runtime": {"status": runtime_status, "built_with_cuda": bool(facts.get("cuda_build") or facts.get("hip_build")),
                    "runtime_version": facts.get("cuda_build") or facts.get("hip_build"),
                    "driver_api_version": None, "error_name": None if usable else first["id"],
                    "error_message": None if usable else first["title"],
                    "device_count": facts.get("device_count") or (1 if dev.kind == "mps" else 0),
                    "devices": [gpu_row()] if on_gpu else [], "built_for": facts.get("arch_list") or [],
                    "ptx_for": None},
        "verdict": {"code": "usable" if usable else first["id"], "usable": usable, "simulate": not usable,
                    "summary": ("GPU usable: %s" % (facts.get("gpu") or dev.kind.upper())) if usable
                    else "no usable GPU: %s" % ((first["title"][0].lower() + first["title"][1:]) if blocking
                                                else facts.get("why_cpu") or "none found"),
                    "explanation": first["text"], "advice": " ".join(first["steps"][:2])},
    }
    env.details()["views"] = views
    env.details()["preflight"] = [{"id": fd["id"], "title": fd["title"], "blocking": fd["blocking"]} for fd in findings]
    env.metric("driver_device_count", facts.get("smi_gpu_count") or 0)
    env.metric("runtime_device_count", views["runtime"]["device_count"])
    env.metric("usable", usable)
    if on_gpu:
        env.metric("memory_total_bytes", total or 0)
        env.metric("memory_free_bytes", free or 0)
        env.metric("sm_count", facts.get("sm_count") or 0)
    else:
        env.not_measured({k: "no CUDA or ROCm device here" + (": MPS shares the Mac's memory and has no SM count"
                                                                if dev.kind == "mps" else "")
                          for k in ("memory_total_bytes", "memory_free_bytes", "sm_count")})
    env.finding(views["verdict"]["summary"] + ".")
    if dev.kind == "mps":
        env.finding("PyTorch runs on the Mac's GPU through Metal (MPS); it shares the Mac's memory, so there is "
                    "no copy over a PCIe link and no driver view like nvidia-smi's.")
    for fd in findings:
        if fd["id"] != "env_consistent":
            env.finding("Preflight: %s." % fd["title"])
    env.stats(1, 0, None, 0, "PyTorch's own view (torch.cuda / torch.backends.mps) and nvidia-smi, read once; "
                             "nothing is timed.")
    return env


def exp_placement(torch, dev, facts, findings, sizes):
    p = {"batch": 64, "features": 768, "classes": 3, "model_on_gpu": dev.gpu, "move_features": dev.gpu,
         "move_mask": dev.gpu, "move_labels": dev.gpu}
    env = Env("placement", facts.get("gpu") if dev.gpu else None, p)
    b, f, c = p["batch"], p["features"], p["classes"]
    model = torch.nn.Linear(f, c).to(dev.tdev)
    host = {"features": torch.randn(b, f), "mask": torch.ones(b), "labels": torch.randint(0, c, (b,), dtype=torch.int32)}
    moved = {}
    copy = time_host(dev, lambda: moved.update({k: v.to(dev.tdev) for k, v in host.items()}), 5, 1, "placement copies")
    where = lambda t: str(t.device) if t.device.type != "cuda" else "cuda:%d" % (t.device.index or 0)  # noqa: E731
    tensors = [("weight", "model", model.weight), ("bias", "model", model.bias)] + \
              [(k, "batch", moved[k]) for k in ("features", "mask", "labels")]
    ref = where(model.weight)
    stray = [n for n, _, t in tensors if where(t) != ref]
    fwd = time_device(dev, lambda: model(moved["features"] * moved["mask"][:, None]), 10, 2, "placement forward")
    med, iqr = summary(fwd)
    on_gpu = sum(1 for _, _, t in tensors if t.device.type != "cpu")
    copied = sum(t.element_size() * t.nelement() for k, t in host.items()) if dev.gpu else 0
    env.metric("preflight_ok", not stray)
    env.metric("tensors_on_gpu", on_gpu)
    env.metric("tensors_on_cpu", len(tensors) - on_gpu)
    env.metric("copied_bytes", copied)
    env.metric("kernels_run", 2 if dev.gpu else 0)
    env.metric("copy_ms", summary(copy)[0] if dev.gpu else 0)
    env.metric("forward_ms", med)
    env.metric("output_rows", b)
    env.metric("output_cols", c)
    d = env.details()
    d["tensors"] = [{"name": n, "role": r, "device": where(t), "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                     "bytes": t.element_size() * t.nelement(), "moved": dev.gpu, "stray": n in stray} for n, r, t in tensors]
    d["preflight"] = {"ok": not stray, "field": stray[0] if stray else None, "message": None, "devices": sorted({where(t) for _, _, t in tensors})}
    d["output"] = {"computed": True, "shape": [b, c], "device": ref, "dtype": "float32"}
    if dev.gpu:
        # The lesson's mistake, made for real: one batch field left on the host.
        try:
            model(moved["features"] * host["mask"][:, None])
            d["real_error"] = None
        except Exception as e:
            d["real_error"] = "%s: %s" % (type(e).__name__, str(e)[:400])
            env.finding("With the mask left on the host, PyTorch refused the step: %s" % str(e).split("\n")[0][:200])
    env.finding("Every tensor of the step was on %s; the forward pass took %s (median of 10)." % (ref, fmt_ms(med)))
    env.stats(10, 2, "forward_ms", iqr, "Copies timed with the host clock from a synchronize to the synchronize after "
              "the last .to(); the forward pass with %s; median of 10 after 2 warm-up runs." % timing_method(dev))
    return env


def exp_train_step(torch, dev, facts, findings, sizes):
    p = {"batch": 256, "features": 128, "classes": 10, "steps": sizes["train_steps"], "read_every": 10, "lr": 0.5}
    env = Env("train_step", facts.get("gpu") if dev.gpu else None, p)
    b, f, c, steps, every, lr = p["batch"], p["features"], p["classes"], p["steps"], p["read_every"], p["lr"]
    g = torch.Generator().manual_seed(1)
    centre = torch.randn(c, f, generator=g)
    y = torch.randint(0, c, (b,), generator=g)
    x = ((centre[y] + torch.randn(b, f, generator=g)) / math.sqrt(f)).to(dev.tdev)
    y = y.to(dev.tdev)

    def run(read_each, label):
        w = (0.01 * torch.randn(c, f, generator=torch.Generator().manual_seed(2))).to(dev.tdev).requires_grad_()
        bias = torch.zeros(c, device=dev.tdev, requires_grad=True)
        losses, host, kept = [], [], None
        dev.sync()
        if label:
            dev.mark("sample", label)
        start = dev.clock()
        for s in range(steps):
            t0 = dev.clock()
            loss = torch.nn.functional.cross_entropy(x @ w.t() + bias, y)
            loss.backward()
            with torch.no_grad():
                w -= lr * w.grad
                bias -= lr * bias.grad
                w.grad = None
                bias.grad = None
            if read_each or (s + 1) % every == 0 or s == steps - 1:
                kept = loss.item()  # a read: the host waits for the GPU
                losses.append((s, kept))
            host.append((dev.clock() - t0) * 1e3)
        dev.sync()
        total = (dev.clock() - start) * 1e3  # the run, to the synchronize after its last step
        acc = (torch.argmax(x @ w.detach().t() + bias.detach(), dim=1) == y).float().mean().item()
        return losses, host, acc, total

    run(True, None)  # warm-up: kernels loaded, allocator warm
    run(False, None)
    dev.mark("warmed", "train_step every step")
    dev.mark("warmed", "train_step every n")
    reps = sizes["train_reps"]
    a_runs, b_runs = [], []
    for _ in range(reps):  # interleaved, so a slower moment of the machine costs both alike
        a_runs.append(run(True, "train_step every step"))
        b_runs.append(run(False, "train_step every n"))
    a_tot = [r[3] for r in a_runs]
    b_tot = [r[3] for r in b_runs]
    a_ms, a_iqr = summary(a_tot)
    b_ms, _ = summary(b_tot)
    losses, host_a, acc, _ = a_runs[0]
    host_b = b_runs[0][1]
    reads_a, reads_b = steps, len(b_runs[0][0])
    per_read, lo, hi = paired_difference([(a - b) * 1e3 / max(1, reads_a - reads_b) for a, b in zip(a_tot, b_tot)])
    resolved = lo > 0
    env.metric("every_step_ms", a_ms)
    env.metric("every_n_ms", b_ms)
    env.metric("per_step_every_step_us", a_ms * 1e3 / steps)
    env.metric("per_step_every_n_us", b_ms * 1e3 / steps)
    if resolved:
        env.metric("cost_per_read_us", per_read)
    else:
        env.not_measured({"cost_per_read_us": "not resolved: the %d paired runs put a read's cost between %.1f and "
                                              "%.1f µs, which includes no cost at all (the steps' own run-to-run "
                                              "noise is larger than the reads)" % (reps, lo, hi)})
    env.details()["cost_per_read_interval_us"] = [lo, hi]
    env.metric("slowdown", a_ms / b_ms if b_ms > 0 else 0)
    env.metric("syncs_every_step", reads_a)
    env.metric("syncs_every_n", reads_b)
    gpu_step = time_device(dev, lambda: torch.nn.functional.cross_entropy(x @ x.new_zeros(c, f).t(), y), 5, 1,
                           "train_step forward+loss") if dev.gpu else [0]
    env.metric("gpu_step_us", summary(gpu_step)[0] * 1e3)
    env.metric("first_loss", losses[0][1])
    env.metric("final_loss", losses[-1][1])
    env.metric("final_accuracy", acc)
    env.series("loss", "training loss", "step", "nats", losses, source="computed" if not dev.gpu else None)
    t = 0.0
    pts_a, pts_b = [], []
    for s, h in enumerate(host_a):
        t += h
        pts_a.append((s + 1, t))
    t = 0.0
    for s, h in enumerate(host_b):
        t += h
        pts_b.append((s + 1, t))
    env.series("host_every_step", "host time, loss read every step", "step", "ms", pts_a)
    env.series("host_every_n", "host time, loss read every N steps", "step", "ms", pts_b)
    # The first steps of the every-step run as host spans (what the CPU did).
    t = 0.0
    for s, h in enumerate(host_a[:10]):
        env.event("cpu", "step %d (.item() at its end)" % (s + 1), t * 1e3, (t + h) * 1e3)
        t += h
    env.details().update({"model": {"batch": b, "features": f, "classes": c, "parameters": c * f + c},
                          "read_every": every,
                          "kernels_per_step": ["linear forward", "cross-entropy", "backward", "SGD update"]})
    if dev.gpu:
        env.differs({"gpu_step_us": "the forward pass and loss alone, timed with events, not the whole step's GPU time"})
    else:
        env.not_measured({"gpu_step_us": "no GPU: the CPU runs each step to its end"})
    if dev.gpu and resolved:
        env.finding("Reading the loss every step took %s for %d steps, every %d steps %s: each .item() made the CPU "
                    "wait for the GPU, about %.0f µs a read (%.0f to %.0f µs over %d paired runs)."
                    % (fmt_ms(a_ms), steps, every, fmt_ms(b_ms), per_read, lo, hi, reps))
    elif dev.gpu:
        env.finding("Reading the loss every step took %s for %d steps, every %d steps %s: the difference is below "
                    "the runs' own noise (a read costs between %.0f and %.0f µs), so this GPU kept up with the "
                    "host and .item() had little to wait for." % (fmt_ms(a_ms), steps, every, fmt_ms(b_ms), lo, hi))
    elif a_ms < 1.1 * b_ms:
        env.finding("On the CPU every step runs to its end before the next starts, so reading the loss every step "
                    "(%s) and every %d steps (%s) cost about the same: .item() has nothing to wait for."
                    % (fmt_ms(a_ms), every, fmt_ms(b_ms)))
    else:
        env.finding("Reading the loss every step took %s, every %d steps %s. On the CPU nothing runs behind "
                    "Python, so .item() waits for nothing: the gap is its own cost and the machine's noise, "
                    "about %.0f µs a read." % (fmt_ms(a_ms), every, fmt_ms(b_ms), per_read))
    env.finding("The loss fell from %.3f to %.3f; accuracy %.0f%%." % (losses[0][1], losses[-1][1], 100 * acc))
    env.stats(reps, 1, "every_step_ms", a_iqr, "The host clock around each step, %d runs of %d steps each way after "
              "one warm-up run, interleaved; loss read with .item() every step, then every %d steps; a read's cost "
              "is the median of the paired runs' differences per extra read, with its 95 %% interval (order "
              "statistics), reported only when the interval excludes zero; random normal data "
              "(class centres plus noise)." % (reps, steps, every))
    return env


def exp_crossover(torch, dev, facts, findings, sizes):
    p = {"max_size": 512, "samples": sizes["samples"]}
    env = Env("crossover", facts.get("gpu") if dev.gpu else None, p)
    ns = [16, 32, 64, 128, 256, 512]
    cpu, gk, gw, gc = [], [], [], []
    threads = torch.get_num_threads()
    for n in ns:
        a, b = torch.randn(n, n), torch.randn(n, n)
        reps = max(1, int(2e6 // (n ** 3)) or 1)
        cpu_dev = Device(torch, "cpu", None, torch.device("cpu"))  # host work: nothing to synchronize
        cpu.append(summary(time_host(cpu_dev, lambda: [a @ b for _ in range(reps)], p["samples"], 1,
                                     "crossover cpu %d" % n))[0] / reps)
        if dev.gpu:
            da, db = a.to(dev.tdev), b.to(dev.tdev)
            gk.append(summary(time_device(dev, lambda: da @ db, p["samples"], 2, "crossover kernel %d" % n))[0])
            gw.append(summary(time_host(dev, lambda: da @ db, p["samples"], 2, "crossover gpu %d" % n))[0])
            gc.append(summary(time_host(dev, lambda: (a.to(dev.tdev) @ b.to(dev.tdev)).cpu(), p["samples"], 2,
                                        "crossover copies %d" % n))[0])
    label = "CPU matmul (PyTorch %s, %d threads)" % (torch.__version__, threads)
    env.series("cpu", label, "N", "ms", zip(ns, cpu), source="measured")
    gflops = lambda n, ms: 2.0 * n ** 3 / (ms * 1e6) if ms > 0 else 0  # noqa: E731
    env.metric("largest_n", ns[-1])
    env.metric("cpu_ms_largest", cpu[-1])
    env.metric("cpu_ms_smallest", cpu[0])
    env.metric("cpu_gflops", gflops(ns[-1], cpu[-1]))
    env.details()["headline"] = {"cpu": "cpu", "cpu_label": label}
    if dev.gpu:
        env.series("gpu_kernel", "GPU matmul alone (%s)" % ("events" if dev.has_events else "synchronize"), "N", "ms", zip(ns, gk))
        env.series("gpu", "GPU, data on the device (launch + matmul + synchronize)", "N", "ms", zip(ns, gw))
        env.series("gpu_copies", "GPU with copies (A, B up; C down)", "N", "ms", zip(ns, gc))
        first = lambda fast, slow: next((n for n, f, s in zip(ns, fast, slow) if f < s), 0)  # noqa: E731
        env.metric("crossover_n", first(gw, cpu))
        env.metric("crossover_copies_n", first(gc, cpu))
        env.metric("gpu_ms_largest", gw[-1])
        env.metric("gpu_copies_ms_largest", gc[-1])
        env.metric("speedup_largest", cpu[-1] / gw[-1] if gw[-1] > 0 else 0)
        env.metric("speedup_copies_largest", cpu[-1] / gc[-1] if gc[-1] > 0 else 0)
        env.metric("gpu_ms_smallest", gw[0])
        env.metric("gpu_overhead_us", (gw[0] - gk[0]) * 1e3)
        env.metric("gpu_kernel_gflops", gflops(ns[-1], gk[-1]))
        env.details()["headline"]["sizes"] = [{"n": n, "faster": "gpu" if g < c else "cpu"} for n, g, c in zip(ns, gw, cpu)]
        env.finding("The GPU (launch + matmul + synchronize) first beat the CPU at N = %d; with the copies at N = %d."
                    % (first(gw, cpu), first(gc, cpu)) if first(gw, cpu) else
                    "Up to N = %d the CPU was faster than launching, running and synchronizing on the GPU." % ns[-1])
    else:
        env.not_measured({k: "no GPU here: only the CPU side ran" for k in (
            "crossover_n", "crossover_copies_n", "gpu_ms_largest", "gpu_copies_ms_largest", "speedup_largest",
            "speedup_copies_largest", "gpu_ms_smallest", "gpu_overhead_us", "gpu_kernel_gflops",
            "gpu_kernel", "gpu", "gpu_copies")})
        env.finding("The CPU multiplied %d×%d matrices in %s (%.1f GFLOPS); without a GPU, gpulab compare puts the "
                    "simulator's GPU lines beside it." % (ns[-1], ns[-1], fmt_ms(cpu[-1]), gflops(ns[-1], cpu[-1])))
    env.stats(p["samples"], 1, "cpu_ms", summary(cpu)[1], "CPU: the host clock around a batch of matmuls sized to "
              "about 2 MFLOP, per matmul; GPU: %s for the matmul alone, the host clock with a synchronize for the "
              "rest; median of %d after warm-up; random normal matrices." % (timing_method(dev), p["samples"]))
    return env


def exp_timing(torch, dev, facts, findings, sizes):
    n, k, samples = sizes["timing_n"], 10, 7
    p = {"size": n, "repeats": k, "samples": samples, "view": "pytorch"}
    env = Env("timing", facts.get("gpu"), p)
    a, b = torch.randn(n, n, device=dev.tdev), torch.randn(n, n, device=dev.tdev)
    batch = lambda: [a @ b for _ in range(k)]  # noqa: E731
    # The first batch in this process: cuBLAS is loaded and its kernels with it.
    cold = time_host(dev, batch, 1, 0, "timing cold")[0]
    runs = [cold]
    events = time_device(dev, batch, samples, 2, "timing events")
    sync = time_host(dev, batch, samples, 1, "timing host sync")
    nosync = time_host(dev, batch, samples, 1, "timing host nosync", sync=False)
    runs += sync
    ev, ev_iqr = summary(events)
    s_ms, n_ms = summary(sync)[0], summary(nosync)[0]
    env.metric("events_ms", ev)
    env.metric("host_nosync_ms", n_ms)
    env.metric("host_sync_ms", s_ms)
    env.metric("nosync_pct_of_events", 100 * n_ms / ev if ev > 0 else 0)
    env.metric("sync_error_pct", 100 * abs(s_ms - ev) / ev if ev > 0 else 0)
    env.metric("cold_ms", cold)
    env.metric("warm_ms", s_ms)
    env.metric("cold_over_warm", cold / s_ms if s_ms > 0 else 0)
    env.metric("gpu_busy_ms", ev)
    env.metric("launch_us", n_ms * 1e3 / k)
    env.metric("sgemm_ms", ev / k)
    env.metric("tflops", 2.0 * n ** 3 * k / (ev * 1e9) if ev > 0 else 0)
    env.series("events", "%s events" % ("MPS" if dev.kind == "mps" else "CUDA"), "sample", "ms", enumerate(events, 1))
    env.series("host_sync", "host clock after synchronize", "sample", "ms", enumerate(sync, 1))
    env.series("host_nosync", "host clock, no synchronize", "sample", "ms", enumerate(nosync, 1))
    env.series("gpu_busy", "GPU time of the batch (events)", "sample", "ms", enumerate(events, 1))
    env.series("runs", "every batch in order (run 1 is cold)", "run", "ms", enumerate(runs, 1))
    # One batch drawn: when each launch returned on the host, and each matmul's GPU span from events between them.
    if dev.has_events:
        evs = [dev.event() for _ in range(k + 1)]
        dev.sync()
        dev.mark("warmed", "timing timeline")  # the batches above warmed it up
        dev.mark("sample", "timing timeline")
        t0 = dev.clock()
        launch_end = []
        evs[0].record()
        for i in range(k):
            a @ b
            evs[i + 1].record()
            launch_end.append((dev.clock() - t0) * 1e6)
        sync_start = (dev.clock() - t0) * 1e6
        dev.sync()
        sync_end = (dev.clock() - t0) * 1e6
        start = 0.0
        for i in range(k):
            env.event("cpu", "launch matmul %d" % (i + 1), start, launch_end[i])
            start = launch_end[i]
        env.event("cpu", "synchronize", sync_start, sync_end)
        g = launch_end[0]
        for i in range(k):
            dur = evs[i].elapsed_time(evs[i + 1]) * 1e3
            env.event("gpu:0/stream0", "matmul %d" % (i + 1), g, g + dur)
            g += dur
    env.details()["view"] = "pytorch"
    started = ("CUDA was started by the kit's first experiment, in this same process: only a fresh process "
               "times its start (gpulab's worker does)" if dev.kind in ("cuda", "rocm") else
               "no CUDA context here: %s has none to start" % ("MPS" if dev.kind == "mps" else "the CPU"))
    env.not_measured({"context_ms": started, "context_share_pct": started,
                      "first_call": "the first call's parts (starting CUDA, loading cuBLAS, the matrix multiplies) "
                                    "need a fresh process; the kit's first batch is drawn whole as cold_ms"})
    env.differs({"gpu_busy_ms": "PyTorch cannot hold the stream until a batch is queued: events around the batch, "
                                "as events_ms"})
    if ev > n_ms:
        env.finding("Without synchronize the host timer saw %s while the GPU worked %s: the %d launches returned "
                    "before the work was done." % (fmt_ms(n_ms), fmt_ms(ev), k))
    env.finding("After synchronize the host timer saw %s, events %s." % (fmt_ms(s_ms), fmt_ms(ev)))
    env.finding("The first batch of this run took %s, %.1f× a warm one. The experiments before it had already "
                "loaded cuBLAS in this process, so a fresh process pays more: warm up before you time, and never "
                "report the first run." % (fmt_ms(cold), cold / s_ms if s_ms else 0))
    env.stats(samples, 2, "events_ms", ev_iqr, "%d fp32 matmuls of %d×%d (random normal) per batch: %s around the "
              "batch, the host clock after a synchronize, and the host clock with no synchronize (the trap, on "
              "purpose); median of %d after 2 warm-up batches; TF32 off." % (k, n, n, timing_method(dev), samples))
    return env


def exp_transfer(torch, dev, facts, findings, sizes):
    max_b, samples = sizes["transfer_bytes"], 5
    # The small copies together stay within the largest copy, as gpulab's run asks.
    p = {"max_bytes": max_b, "samples": samples, "small_copies": max(10, min(1000, max_b // 4096)), "small_bytes": 4096,
         "host": "profile"}
    env = Env("transfer", facts.get("gpu"), p)
    szs = []
    s = 4096
    while s <= max_b:
        szs.append(s)
        s *= 4
    if szs[-1] < max_b:
        szs.append(max_b)
    kinds = [("h2d_pageable", "host→device, pageable", False, True), ("h2d_pinned", "host→device, pinned", True, True),
             ("d2h_pageable", "device→host, pageable", False, False), ("d2h_pinned", "device→host, pinned", True, False)]
    gbps, iqrs = {}, []
    for kid, label, pinned, h2d in kinds:
        pts = []
        for nb in szs:
            n = nb // 4
            host = torch.randn(n)
            if pinned:
                host = dev.pin(host)
            d = torch.empty(n, device=dev.tdev)
            fn = (lambda: d.copy_(host, non_blocking=pinned)) if h2d else (lambda: host.copy_(d, non_blocking=pinned))
            ms, iqr = summary(time_device(dev, fn, samples, 1, "transfer %s %d" % (kid, nb)))
            iqrs.append(iqr)
            pts.append((nb, nb / (ms * 1e6) if ms > 0 else 0))
            del host, d
        gbps[kid] = pts
        env.series(kid, label, "bytes", "GB/s", pts)
        env.metric(kid + "_gbps", pts[-1][1])
    pin, page = gbps["h2d_pinned"][-1][1], gbps["h2d_pageable"][-1][1]
    half = next((b for b, g in gbps["h2d_pinned"] if g >= 0.5 * pin), szs[-1])
    env.metric("largest_bytes", szs[-1])
    env.metric("pinned_speedup", pin / page if page > 0 else 0)
    env.metric("small_copy_gbps", gbps["h2d_pinned"][0][1])
    env.metric("half_peak_bytes", half)
    big = torch.randn(max_b // 4)
    pin_ms = summary(time_host(dev, lambda: dev.pin(big), 3, 1, "transfer pin"))[0]
    env.metric("pin_ms", pin_ms)
    env.metric("pin_gbps", max_b / (pin_ms * 1e6) if pin_ms > 0 else 0)
    k, sb = p["small_copies"], p["small_bytes"]
    smalls = [dev.pin(torch.randn(sb // 4)) for _ in range(k)]
    dsmall = torch.empty(k * sb // 4, device=dev.tdev)
    whole = dev.pin(torch.cat(smalls))
    many = lambda: [dsmall[i * (sb // 4):(i + 1) * (sb // 4)].copy_(t, non_blocking=True) for i, t in enumerate(smalls)]  # noqa: E731
    many_ms = summary(time_device(dev, many, samples, 1, "transfer small copies"))[0]
    one_ms = summary(time_device(dev, lambda: dsmall.copy_(whole, non_blocking=True), samples, 1, "transfer batched"))[0]
    env.metric("small_copies_ms", many_ms)
    env.metric("batched_copy_ms", one_ms)
    env.metric("per_copy_overhead_us", (many_ms - one_ms) * 1e3 / k)
    env.metric("batching_speedup", many_ms / one_ms if one_ms > 0 else 0)
    link = facts.get("pcie_link")
    if link:
        env.metric("link_nominal_gbps", pcie_nominal_gbps(*link))
        env.details()["host"] = {"pcie_gen": link[0], "pcie_lanes": link[1], "nominal_gbps": pcie_nominal_gbps(*link),
                                 "from": "nvidia-smi's pcie.link.gen.max and pcie.link.width.max"}
        env.finding("The GPU's link is PCIe Gen%d x%d (%.1f GB/s nominal each way): pinned host→device copies "
                    "reached %.0f%% of it." % (link[0], link[1], pcie_nominal_gbps(*link),
                                                100 * pin / pcie_nominal_gbps(*link)))
    else:
        env.details()["host"] = "this machine's own link"
        env.not_measured({"link_nominal_gbps": "nvidia-smi did not give the PCIe link's generation and width"})
    env.finding("Pinned host→device copies of %s reached %.1f GB/s, %.1f× pageable (%.1f GB/s)."
                % (fmt_bytes(szs[-1]), pin, pin / page if page else 0, page))
    env.finding("%d copies of %s took %s; one copy of all of it %s: about %.1f µs of overhead per copy."
                % (k, fmt_bytes(sb), fmt_ms(many_ms), fmt_ms(one_ms), (many_ms - one_ms) * 1e3 / k))
    env.stats(samples, 1, "h2d_pinned_gbps", summary(iqrs)[0], "tensor.copy_() between a host tensor (pinned with "
              ".pin_memory(), or pageable) and a device tensor, %s, median of %d after a warm-up copy; random normal "
              "data; 1e9 bytes per GB; pinning timed with the host clock." % (timing_method(dev), samples))
    return env


def _matmul_err(torch, a, b, out, rows=64):
    """(max, mean) relative error of out = a @ b against float64 on the CPU,
    over its first rows (a sample, as gpulab's kernels check a grid of
    entries: a full float64 reference of 4096² would take minutes on a
    notebook's CPU)."""
    ref = a[:rows].double() @ b.double()
    err = (out[:rows].double() - ref).abs() / ref.abs().clamp_min(1e-3)
    return err.max().item(), err.mean().item()


def exp_precision(torch, dev, facts, findings, sizes):
    top, samples = sizes["precision_n"], 5
    p = {"max_size": top, "samples": samples, "train_steps": 200, "loss_scale": False, "view": "pytorch"}
    env = Env("precision", facts.get("gpu"), p)
    ns = [n for n in (128, 256, 512, 1024, 2048, 4096, 8192) if n <= top]
    modes = [("fp32", torch.float32, False), ("tf32", torch.float32, True), ("bf16", torch.bfloat16, False),
             ("fp16", torch.float16, False)]
    cuda_mm = getattr(getattr(torch.backends, "cuda", None), "matmul", None)
    reps_of = lambda n: max(1, min(200, int(sizes["precision_flop"] // (2.0 * n ** 3))))  # noqa: E731
    reps_used, errors = [], {}
    for name, dtype, tf32 in modes:
        tfl, err, mean_err, ms_top = [], [], [], 0
        for n in ns:
            a, b = torch.randn(n, n, device=dev.tdev), torch.randn(n, n, device=dev.tdev)
            ad, bd = a.to(dtype), b.to(dtype)
            if cuda_mm is not None:
                cuda_mm.allow_tf32 = tf32
            reps = reps_of(n)
            if name == "fp32":
                reps_used.append(reps)
            try:
                ms = summary(time_device(dev, lambda: [ad @ bd for _ in range(reps)], samples, 2,
                                         "precision %s %d" % (name, n)))[0] / reps
                e1, e2 = _matmul_err(torch, a.cpu().to(dtype).float(), b.cpu().to(dtype).float(), (ad @ bd).float().cpu())
            except RuntimeError as e:  # a device without the format
                errors[name] = str(e)[:300]
                ms, e1, e2 = 0, 0, 0
            tfl.append((n, 2.0 * n ** 3 / (ms * 1e9) if ms > 0 else 0))
            err.append((n, e1))
            mean_err.append(e2)
            ms_top = ms
        if cuda_mm is not None:
            cuda_mm.allow_tf32 = False
        env.series("tflops_" + name, name.upper(), "N", "TFLOPS", tfl)
        env.series("err_" + name, name.upper(), "N", "max relative error", err, source="computed")
        env.metric(name + "_tflops", tfl[-1][1])
        env.metric(name + "_ms", ms_top)
        env.metric(name + "_max_rel_err", err[-1][1])
        env.metric(name + "_mean_rel_err", mean_err[-1])
    fp32_ms = env.d["metrics"]["fp32_ms"]
    for name in ("tf32", "bf16", "fp16"):
        ms = env.d["metrics"][name + "_ms"]
        env.metric(name + "_speedup", fp32_ms / ms if ms > 0 else 0)
    env.metric("size_max", ns[-1])
    train = _precision_training(torch, dev, p["train_steps"])
    for name, (losses, flushed, acc) in train.items():
        env.series("loss_" + name, name.upper(), "step", "nats", enumerate(losses), source="computed")
        env.metric("train_%s_final_loss" % name, losses[-1])
        env.metric("train_%s_accuracy" % name, acc)
        env.metric("train_%s_flushed_pct" % name, flushed[-1] if flushed else 0)
        if name != "fp32":
            env.series("flushed_" + name, name.upper(), "step", "% of gradients flushed to zero", enumerate(flushed), source="computed")
            env.metric("train_%s_skipped_steps" % name, 0)
            env.metric("train_%s_final_scale" % name, 1)
    env.details().update({"repeats_per_batch": reps_used, "view": "pytorch",
                          "training": {"batch": 256, "features": 8, "classes": 8, "lr": 1, "device": str(dev.tdev)}})
    if errors:
        env.details()["errors"] = errors
        for name, msg in errors.items():
            env.finding("%s failed on this device: %s" % (name.upper(), msg.split("\n")[0][:200]))
    env.not_measured({k: "PyTorch does not say whether a matmul ran on tensor cores"
                      for k in ("fp32_tensor_cores", "tf32_tensor_cores", "bf16_tensor_cores", "fp16_tensor_cores")})
    env.finding("At N = %d: FP32 %.1f, TF32 %.1f, BF16 %.1f, FP16 %.1f TFLOPS." % tuple(
        [ns[-1]] + [env.d["metrics"][m + "_tflops"] for m in ("fp32", "tf32", "bf16", "fp16")]))
    if "env_bf16_emulated" in [fd["id"] for fd in findings]:
        env.finding("This GPU has no BF16 tensor cores: BF16 ran %.2f× FP32's speed, emulated." % env.d["metrics"]["bf16_speedup"])
    env.stats(samples, 2, "bf16_ms", 0, "a @ b in each format (TF32: torch.backends.cuda.matmul.allow_tf32), repeated "
              "to about 0.4 TFLOP per sample, %s, median of %d after 2 warm-up batches; errors against float64 on "
              "the CPU; the training runs are a small softmax classifier trained in each format on this device."
              % (timing_method(dev), samples))
    return env


def _precision_training(torch, dev, steps):
    """A small classifier trained in fp32, bf16 and fp16 (no loss scaling):
    the loss, and the share of gradient values that underflowed to zero."""
    g = torch.Generator().manual_seed(3)
    b, f, c = 256, 8, 8
    centre = torch.randn(c, f, generator=g)
    y = torch.randint(0, c, (b,), generator=g)
    x = (centre[y] + 0.5 * torch.randn(b, f, generator=g)) * 1e-3
    out = {}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16), ("fp16", torch.float16)):
        try:
            xd, yd = x.to(dev.tdev).to(dtype), y.to(dev.tdev)
            w = torch.zeros(c, f, device=dev.tdev, dtype=dtype, requires_grad=True)
            losses, flushed = [], []
            for _ in range(steps):
                loss = torch.nn.functional.cross_entropy((xd @ w.t()).float(), yd)
                loss.backward()
                with torch.no_grad():
                    gr = w.grad
                    flushed.append(100.0 * (gr == 0).float().mean().item())
                    w -= 1.0 * gr
                    w.grad = None
                losses.append(loss.item())
            acc = (torch.argmax((xd @ w.detach().t()).float(), 1) == yd).float().mean().item()
            out[name] = (losses, flushed, acc)
        except RuntimeError:
            out[name] = ([0.0], [0.0], 0.0)
    return out


def exp_memory(torch, dev, facts, findings, sizes):
    p = {"params_m": sizes["memory_params_m"], "batch": sizes["memory_batch"], "seq_len": sizes["memory_seq_len"],
         "hidden": 512, "layers": 6, "budget_gib": sizes["memory_budget_gib"], "force_oom": True}
    env = Env("memory", facts.get("gpu"), p)
    api = dev.api
    params = int(p["params_m"] * 1e6)
    terms = [("weights", params * 4), ("gradients", params * 4), ("optimizer", params * 8),
             ("activations", p["batch"] * p["seq_len"] * p["hidden"] * p["layers"] * 16 * 4)]
    budget = int(p["budget_gib"] * (1 << 30))
    dev.sync()
    api.empty_cache()
    free0, total = api.mem_get_info()
    if hasattr(api, "reset_peak_memory_stats"):
        api.reset_peak_memory_stats()
    base_alloc = api.memory_allocated()
    api.set_per_process_memory_fraction(min(1.0, budget / total))
    steps, held = [], {}

    def snap(label):
        dev.sync()
        free, _ = api.mem_get_info()
        steps.append({"label": label, "allocated_bytes": api.memory_allocated() - base_alloc,
                      "reserved_bytes": api.memory_reserved(), "device_used_bytes": total - free})

    snap("start")
    oom_msg, oom_req = None, 0
    try:
        for tid, nbytes in terms:
            per = nbytes // p["layers"]
            held[tid] = [torch.empty(per // 4, device=dev.tdev).normal_() for _ in range(p["layers"])]
            snap({"weights": "weights", "gradients": "gradients", "optimizer": "Adam moments",
                  "activations": "forward: activations"}[tid])
        del held["activations"]
        snap("backward: activations freed")
        api.empty_cache()
        snap("empty_cache()")
        left = budget - api.memory_reserved()
        oom_req = max(0, left) + (64 << 20)
        try:
            held["over"] = torch.empty(oom_req // 4, device=dev.tdev)
            snap("deliberate over-ask (not refused)")
        except RuntimeError as e:  # the bounded, deliberate out-of-memory: its real message is kept
            oom_msg = str(e)
            snap("deliberate OOM: 64 MiB more than is left")
    finally:
        held.clear()
        api.set_per_process_memory_fraction(1.0)
        dev.sync()
        api.empty_cache()
    free1, _ = api.mem_get_info()
    snap("everything freed")
    peak_a = (api.max_memory_allocated() - base_alloc) if hasattr(api, "max_memory_allocated") else max(s["allocated_bytes"] for s in steps)
    peak_r = api.max_memory_reserved() if hasattr(api, "max_memory_reserved") else max(s["reserved_bytes"] for s in steps)
    floor = sum(b for t, b in terms if t != "activations")
    tot = floor + terms[3][1]
    per_sample = terms[3][1] / p["batch"]
    for tid, nbytes in terms:
        env.metric(tid + "_bytes", nbytes)
    env.metric("floor_bytes", floor)
    env.metric("total_bytes", tot)
    env.metric("capacity_bytes", total)
    env.metric("usable_bytes", free0)
    env.metric("fits", tot <= budget)
    env.metric("fits_device", tot <= free0)
    env.metric("limit_bytes", budget)
    env.metric("limit_is_budget", 1)
    env.metric("max_batch", max(0, int((budget - floor) // per_sample)) if per_sample > 0 else 0)
    env.metric("budget_bytes", budget)
    env.metric("peak_allocated_bytes", peak_a)
    env.metric("peak_reserved_bytes", peak_r)
    env.metric("oom", oom_msg is not None)
    env.metric("oom_requested_bytes", oom_req)
    env.metric("free_before_bytes", free0)
    env.metric("free_after_bytes", free1)
    env.metric("free_restored", free1 >= free0 - (64 << 20))
    gib = float(1 << 30)
    batches = [1 << i for i in range(13)]
    for tid, nbytes in terms:
        env.series(tid, {"weights": "weights (fp32, 4 B/param)", "gradients": "gradients (fp32, 4 B/param)",
                         "optimizer": "Adam m + v (fp32, 8 B/param)", "activations": "activations (estimate)"}[tid],
                   "batch", "GiB", [(bb, (nbytes if tid != "activations" else per_sample * bb) / gib) for bb in batches])
    # gpulab's envelope: the GPU's own free memory is the capacity line, the cap beside it
    env.series("capacity", "free device memory", "batch", "GiB", [(bb, free0 / gib) for bb in batches])
    env.series("limit", "the run's limit (budget_gib)", "batch", "GiB", [(bb, budget / gib) for bb in batches])
    mib = float(1 << 20)
    env.series("allocated", "allocated (tensors)", "step", "MiB", [(i, s["allocated_bytes"] / mib) for i, s in enumerate(steps)])
    env.series("reserved", "reserved (allocator's segments)", "step", "MiB", [(i, s["reserved_bytes"] / mib) for i, s in enumerate(steps)])
    env.series("device_used", "used on the device, as nvidia-smi shows it (CUDA context included)", "step", "MiB",
               [(i, s["device_used_bytes"] / mib) for i, s in enumerate(steps)])
    d = env.details()
    d["terms"] = [{"id": t, "label": t, "bytes": b} for t, b in terms]
    d["steps"] = steps
    d["oom"] = {"deliberate": True, "requested_bytes": oom_req, "message": oom_msg, "limit": "budget"} if oom_msg else None
    d["allocator"] = {"limit_bytes": budget, "rule": "PyTorch's caching allocator under "
                      "torch.cuda.set_per_process_memory_fraction(budget / total)"}
    if oom_msg:
        env.finding("Asking for %s more than the budget left gave PyTorch's real out-of-memory error: %s"
                    % (fmt_bytes(64 << 20), oom_msg.split("\n")[0][:300]))
    env.finding("Weights, gradients and Adam's moments took %s before any activation; the peak reserved was %s."
                % (fmt_bytes(floor), fmt_bytes(peak_r)))
    env.stats(1, 0, None, 0, "The walk of the lesson through PyTorch's caching allocator: each term allocated as one "
              "tensor per layer (random normal), torch.cuda.memory_allocated / memory_reserved and mem_get_info read "
              "after each step (synchronized), capped at budget_gib by set_per_process_memory_fraction; the "
              "deliberate out-of-memory stays inside that cap.")
    return env


def exp_allocator(torch, dev, facts, findings, sizes):
    p = {"block_mib": 16, "cycles": sizes["alloc_cycles"], "layers": 8, "weight_mib": 32, "act_mib": 24, "steps": 3,
         "frag_mib": 4, "frag_blocks": 10, "limit_gib": 2}
    env = Env("allocator", facts.get("gpu"), p)
    api, mib = dev.api, 1 << 20
    stats = lambda: api.memory_stats() if hasattr(api, "memory_stats") else {}  # noqa: E731
    segs = lambda: stats().get("segment.all.allocated", 0)  # noqa: E731
    dev.sync()
    api.empty_cache()
    api.reset_peak_memory_stats()
    base = api.memory_allocated()
    _, total = api.mem_get_info()
    events, pts = [], []

    def note(label):
        free, _ = api.mem_get_info()
        events.append({"label": label, "cuda_malloc_calls": segs()})
        pts.append(((api.memory_allocated() - base) / mib, api.memory_reserved() / mib, (total - free) / mib))

    segs0 = segs()
    note("start")
    floats = lambda m: int(m * mib) // 4  # noqa: E731
    weights = [torch.empty(floats(p["weight_mib"]), device=dev.tdev) for _ in range(p["layers"])]
    note("weights")
    grads = [None] * p["layers"]
    calls = []
    for step in range(p["steps"]):
        before = segs()
        acts = []
        for _ in range(p["layers"]):
            acts.append(torch.empty(floats(p["act_mib"]), device=dev.tdev))
            note("step %d forward" % (step + 1))
        for layer in reversed(range(p["layers"])):
            if grads[layer] is None:
                grads[layer] = torch.empty(floats(p["weight_mib"]), device=dev.tdev)
            acts[layer] = None
            note("step %d backward" % (step + 1))
        calls.append(segs() - before)
    dev.sync()
    peak_a, peak_r = api.max_memory_allocated() - base, api.max_memory_reserved()
    free, _ = api.mem_get_info()
    before = (api.memory_allocated() - base, api.memory_reserved(), total - free)
    # As gpulab's walk: weights and gradients stay allocated, so empty_cache() returns only the cache's free
    # blocks (dropping them first released everything on the H100: 738 MB against gpulab's 201 MB).
    api.empty_cache()
    note("empty_cache()")
    free, _ = api.mem_get_info()
    after = (api.memory_allocated() - base, api.memory_reserved(), total - free)
    del weights, grads, acts
    api.empty_cache()
    # cudaMalloc and cudaFree as PyTorch pays them: a block allocated with the cache empty, freed by empty_cache().
    blk = floats(p["block_mib"])
    mal, fre, busy, cache = [], [], [], []
    # Host costs of calls that return when done (cudaMalloc, cudaFree): the host clock around each, the device idle.
    dev.mark("host", "allocator malloc, free and cache")
    for i in range(p["cycles"] + 1):
        dev.sync()
        t0 = dev.clock()
        t = torch.empty(blk, device=dev.tdev)
        t1 = dev.clock()
        del t
        api.empty_cache()
        t2 = dev.clock()
        if i:  # the first cycle is the warm-up
            mal.append((t1 - t0) * 1e6)
            fre.append((t2 - t1) * 1e6)
    keep = torch.empty(blk, device=dev.tdev)
    del keep  # now cached
    for i in range(p["cycles"] + 1):
        dev.sync()
        t0 = dev.clock()
        t = torch.empty(blk, device=dev.tdev)
        del t
        if i:
            cache.append((dev.clock() - t0) * 1e6)
    busy_us = 0.0
    if hasattr(api, "_sleep"):
        cyc = 2_000_000
        for i in range(min(10, p["cycles"]) + 1):
            t = torch.empty(blk, device=dev.tdev)
            api._sleep(cyc)  # a kernel running while the block is freed: cudaFree waits for it
            del t
            if i:
                dev.mark("nosync", "allocator free while busy")  # the host's cost of freeing, on purpose
            t0 = dev.clock()
            api.empty_cache()
            if i:
                busy.append((dev.clock() - t0) * 1e6)
            dev.sync()
            if not i:
                dev.mark("warmed", "allocator free while busy")
        busy_us = summary(time_device(dev, lambda: api._sleep(cyc), 3, 1, "allocator busy kernel"))[0] * 1e3
    # Fragmentation: blocks freed every other one leave holes no bigger request fits.
    api.empty_cache()
    fb = floats(p["frag_mib"])
    blocks = [torch.empty(fb, device=dev.tdev) for _ in range(p["frag_blocks"])]
    for i in range(0, len(blocks), 2):
        blocks[i] = None
    free_cache = api.memory_reserved() - api.memory_allocated()
    # The cache's free pieces, from its own map of segments and blocks.
    snap = api.memory_snapshot() if hasattr(api, "memory_snapshot") else None
    pieces = [b["size"] for seg in snap or [] for b in seg.get("blocks", []) if b.get("state") == "inactive"]
    if snap is None:
        env.not_measured({"frag_largest_free_bytes": "torch.cuda.memory_snapshot is not in this PyTorch",
                          "frag_free_pieces": "torch.cuda.memory_snapshot is not in this PyTorch"})
    r_before, s_before = api.memory_reserved(), segs()
    want = torch.empty(2 * fb, device=dev.tdev)
    r_after, s_after = api.memory_reserved(), segs()
    del want, blocks
    api.empty_cache()
    med = lambda xs: summary(xs)[0]  # noqa: E731
    pair = med(mal) + med(fre)
    for k, v in (("block_bytes", blk * 4), ("cuda_malloc_us", med(mal)), ("cuda_free_us", med(fre)),
                 ("cuda_free_busy_us", med(busy) if busy else 0), ("busy_kernel_us", busy_us),
                 ("cache_alloc_free_us", med(cache)), ("cache_speedup", pair / med(cache) if med(cache) > 0 else 0),
                 ("cache_iqr_pct", summary(cache)[1]), ("peak_allocated_bytes", peak_a), ("peak_reserved_bytes", peak_r),
                 ("cuda_malloc_calls_step1", calls[0]), ("cuda_malloc_calls_later_steps", sum(calls[1:])),
                 ("before_empty_allocated_bytes", before[0]), ("before_empty_reserved_bytes", before[1]),
                 ("before_empty_device_used_bytes", before[2]), ("after_empty_allocated_bytes", after[0]),
                 ("after_empty_reserved_bytes", after[1]), ("after_empty_device_used_bytes", after[2]),
                 ("empty_cache_released_bytes", before[1] - after[1]), ("frag_block_bytes", fb * 4),
                 ("frag_free_in_cache_bytes", free_cache), ("frag_largest_free_bytes", max(pieces) if pieces else None),
                 ("frag_free_pieces", len(pieces) if snap is not None else None), ("frag_request_bytes", 2 * fb * 4),
                 ("frag_reserved_before_bytes", r_before), ("frag_reserved_after_bytes", r_after),
                 ("frag_new_segments", s_after - s_before), ("frag_reserved_after_empty_bytes", api.memory_reserved()),
                 ("frag_allocated_after_empty_bytes", api.memory_allocated() - base)):
        if v is not None:
            env.metric(k, v)
    env.series("allocated", "allocated (live tensors)", "event", "MiB", [(i, a) for i, (a, _, _) in enumerate(pts)])
    env.series("reserved", "reserved (the cache's segments)", "event", "MiB", [(i, r) for i, (_, r, _) in enumerate(pts)])
    env.series("device_used", "used on the device, as nvidia-smi shows it (CUDA context included)", "event", "MiB",
               [(i, u) for i, (_, _, u) in enumerate(pts)])
    env.series("cuda_malloc", "allocate with the cache empty (cudaMalloc)", "cycle", "µs", enumerate(mal, 1))
    env.series("cuda_free", "empty_cache() of one block (cudaFree)", "cycle", "µs", enumerate(fre, 1))
    env.series("cache", "cache: allocate + free", "cycle", "µs", enumerate(cache, 1))
    env.details()["events"] = events
    env.finding("From PyTorch's cache an allocate + free took %.1f µs; with the cache empty, allocating cost %.0f µs "
                "and giving it back %.0f µs." % (med(cache), med(mal), med(fre)))
    env.finding("Three steps of 8 layers peaked at %s allocated and %s reserved; empty_cache() gave %s back."
                % (fmt_bytes(peak_a), fmt_bytes(peak_r), fmt_bytes(before[1] - after[1])))
    env.stats(p["cycles"], 1, "cache_alloc_free_us", summary(cache)[1], "The host clock around torch.empty and "
              "del/empty_cache() on an idle device (after a synchronize), %d cycles after one warm-up; "
              "cudaMalloc calls counted from torch.cuda.memory_stats()['segment.all.allocated']; memory read with "
              "memory_allocated, memory_reserved and mem_get_info." % p["cycles"])
    return env


def exp_graphs(torch, dev, facts, findings, sizes):
    kernels, elements, samples = sizes["graph_kernels"], 4096, 7
    p = {"kernels": kernels, "elements": elements, "sweep": True, "samples": samples, "view": "pytorch"}
    env = Env("graphs", facts.get("gpu"), p)
    api = dev.api

    def build(n):
        x = torch.randn(n, device=dev.tdev)
        bs = [torch.randn(n, device=dev.tdev) for _ in range(8)]

        def step(k):
            torch.add(bs[k % 8], x, alpha=0.999, out=x)

        def chain():
            for k in range(kernels):
                step(k)
        chain.step = step
        return chain

    def measure(n):
        chain = build(n)
        eager = time_host(dev, chain, samples, 2, "graphs eager %d" % n)
        side = api.Stream()
        side.wait_stream(api.current_stream())
        with api.stream(side):
            chain()
        api.current_stream().wait_stream(side)
        dev.sync()
        g = api.CUDAGraph()
        t0 = dev.clock()
        with api.graph(g):
            chain()
        dev.sync()
        one_off = (dev.clock() - t0) * 1e6
        replay = time_host(dev, g.replay, samples, 2, "graphs replay %d" % n)
        body = time_device(dev, g.replay, 3, 1, "graphs body %d" % n)
        launch = time_host(dev, g.replay, samples, 1, "graphs replay launch %d" % n, sync=False)
        return eager, replay, body, launch, one_off, chain, g

    eager, replay, body, launch, one_off, chain0, graph0 = measure(elements)
    e_us, g_us = summary(eager)[0] * 1e3, summary(replay)[0] * 1e3
    e_launch = summary(time_host(dev, build(elements), samples, 1, "graphs eager launch", sync=False))[0] * 1e3
    env.metric("eager_total_us", e_us)
    env.metric("graph_total_us", g_us)
    env.metric("eager_per_kernel_us", e_us / kernels)
    env.metric("graph_per_kernel_us", g_us / kernels)
    env.metric("graph_speedup", e_us / g_us if g_us > 0 else 0)
    env.metric("eager_launch_us", e_launch)
    env.metric("eager_launch_per_kernel_us", e_launch / kernels)
    env.metric("graph_launch_us", summary(launch)[0] * 1e3)
    env.metric("eager_gpu_us", summary(body)[0] * 1e3)
    env.metric("graph_gpu_us", summary(body)[0] * 1e3)
    env.metric("capture_us", one_off)
    env.metric("instantiate_us", 0)
    env.metric("one_off_us", one_off)
    env.metric("saved_per_replay_us", e_us - g_us)
    if e_us > g_us:
        env.metric("payback_replays", math.ceil(one_off / (e_us - g_us)))
    else:
        env.not_measured({"payback_replays": "the graph saved nothing per replay here, so it never pays back"})
    sweep = [n for n in (1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216) if n <= sizes["graph_sweep_max"]]
    se, sg, sbody = [], [], []
    for n in sweep:
        e, r, bd = measure(n)[:3] if n != elements else (eager, replay, body)
        se.append((n, summary(e)[0] * 1e3 / kernels))
        sg.append((n, summary(r)[0] * 1e3 / kernels))
        sbody.append((n, summary(bd)[0] * 1e3 / kernels))
    env.series("sweep_eager", "one by one", "elements", "µs", se)
    env.series("sweep_graph", "CUDA graph", "elements", "µs", sg)
    env.series("sweep_body", "GPU time per kernel inside the graph (events)", "elements", "µs", sbody)
    gain = [n for (n, e), (_, g) in zip(se, sg) if e <= g * 1.1]
    if gain:
        env.metric("no_gain_from_elements", gain[0])
    else:
        env.not_measured({"no_gain_from_elements": "the graph stayed more than 10 % ahead at every swept size"})
    env.metric("sweep_small_speedup", se[0][1] / sg[0][1] if sg[0][1] > 0 else 0)
    env.metric("sweep_large_speedup", se[-1][1] / sg[-1][1] if sg[-1][1] > 0 else 0)
    reps = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15]
    env.series("cost_eager", "one by one, r runs", "replays", "ms", [(r, r * e_us / 1e3) for r in reps])
    env.series("cost_graph", "capture + instantiate + r replays", "replays", "ms", [(r, (one_off + r * g_us) / 1e3) for r in reps])
    _graphs_timeline(env, dev, chain0, graph0, kernels)
    env.details()["view"] = "pytorch"
    env.differs({"capture_us": "torch.cuda.graph captures and instantiates in one call: capture and instantiation",
                 "instantiate_us": "0: torch.cuda.graph instantiates inside the capture (capture_us holds both)"})
    env.finding("%d one-kernel ops cost %.1f µs each one by one and %.1f µs each replayed as a CUDA graph (%.1f×); "
                "capturing it took %s." % (kernels, e_us / kernels, g_us / kernels, e_us / g_us if g_us else 0, fmt_ms(one_off / 1e3)))
    env.stats(samples, 2, "graph_per_kernel_us", summary(replay)[1], "x ← b + 0.999·x as %d torch.add ops on %d "
              "floats, eager and captured with torch.cuda.graph (warmed up on a side stream first); the host clock "
              "from a synchronize to the synchronize after the last op or the replay; median of %d after 2 warm-up "
              "runs." % (kernels, elements, samples))
    return env


def _graphs_timeline(env, dev, chain, graph, kernels, shown=12):
    """The chain's first ops one by one (each launch's host span, each
    kernel's span from events around it), then the whole chain replayed
    once as a graph (the replay call's host span, the graph's span)."""
    start, evs, host = dev.event(), [], []
    dev.mark("warmed", "graphs timeline")  # the chain and the graph ran many times above
    dev.sync()
    dev.mark("sample", "graphs timeline")
    t0 = dev.clock()
    start.record()
    for i in range(shown):
        a, b = dev.event(), dev.event()
        a.record()
        h0 = dev.clock()
        chain.step(i)
        host.append(((h0 - t0) * 1e6, (dev.clock() - t0) * 1e6, "launch kernel %d" % (i + 1), "kernel %d (one by one)" % (i + 1)))
        b.record()
        evs.append((a, b))
    a, b = dev.event(), dev.event()
    a.record()
    h0 = dev.clock()
    graph.replay()
    host.append(((h0 - t0) * 1e6, (dev.clock() - t0) * 1e6, "replay the graph (%d kernels)" % kernels,
                 "graph: %d kernels" % kernels))
    b.record()
    evs.append((a, b))
    sync_start = (dev.clock() - t0) * 1e6
    dev.sync()
    env.event("cpu", "synchronize", sync_start, (dev.clock() - t0) * 1e6)
    for (h0, h1, cpu_label, gpu_label), (a, b) in zip(host, evs):
        env.event("cpu", cpu_label, h0, h1)
        env.event("gpu:0/stream0", gpu_label, start.elapsed_time(a) * 1e3, start.elapsed_time(b) * 1e3)


def _op_spans(dev, api, ops, label):
    """The GPU spans of ops run on their streams: an event before and after
    each op, all read against one start event every stream waits on.
    ops: [(stream, lanes, label, fn)] -> [(lane, label, start_us, end_us)]."""
    start, evs, waited = dev.event(), [], set()
    dev.mark("warmed", label)  # the same ops ran, timed, above
    dev.sync()
    dev.mark("sample", label)
    start.record()
    for st, lanes, lab, fn in ops:
        with api.stream(st):
            if id(st) not in waited:
                st.wait_event(start)
                waited.add(id(st))
            a, b = dev.event(), dev.event()
            a.record()
            fn()
            b.record()
        evs.append((lanes, lab, a, b))
    dev.sync()
    return [(lane, lab, start.elapsed_time(a) * 1e3, start.elapsed_time(b) * 1e3) for lanes, lab, a, b in evs
            for lane in lanes]


def _grid_kernel(torch, dev, kernel_us, passes=4):
    """A stand-in for gpulab's streams kernel: about kernel_us of work whose
    blocks fill every SM, so kernels of different streams take turns as
    large kernels do. torch.cuda._sleep is one thread: four streams ran four
    of them side by side on the H100 (16 chunks of 300 µs took 3.52 ms on 4
    streams, below the 4.8 ms of kernels alone). Elementwise passes over a
    buffer sized with events to take kernel_us/passes each (millions of
    elements: thousands of blocks); the copies' 55 GB/s take little of the
    memory bandwidth these passes use."""
    def timed(n):
        a = torch.empty(n, device=dev.tdev)
        b = torch.empty_like(a)
        ms = summary(time_device(dev, lambda: torch.mul(a, 0.5, out=b), 3, 1, "streams kernel calibration"))[0]
        return a, b, ms * 1e3
    n0 = 1 << 22
    a, b, us = timed(n0)
    n = int(min(1 << 26, max(n0, n0 * (kernel_us / passes) / max(us, 1e-3))))
    if n != n0:
        a, b, us = timed(n)
    k = max(1, int(round(kernel_us / max(us, 1e-3))))

    def busy():
        for _ in range(k):
            torch.mul(a, 0.5, out=b)
    return busy


def exp_streams(torch, dev, facts, findings, sizes):
    chunks, chunk_mib, kernel_us, nstreams, samples = 16, sizes["stream_chunk_mib"], 300, 4, 5
    p = {"chunks": chunks, "chunk_mib": chunk_mib, "kernel_us": kernel_us, "streams": nstreams, "memory": "pinned", "wait": False}
    env = Env("streams", facts.get("gpu"), p)
    api = dev.api
    busy = _grid_kernel(torch, dev, kernel_us)
    n = chunk_mib * (1 << 20) // 4
    pool = [api.Stream() for _ in range(nstreams)]
    dev_in = [torch.empty(n, device=dev.tdev) for _ in range(chunks)]

    def make(pinned):
        hin = [torch.randn(n) for _ in range(chunks)]
        hout = [torch.empty(n) for _ in range(chunks)]
        if pinned:
            hin, hout = [dev.pin(t) for t in hin], [dev.pin(t) for t in hout]
        return hin, hout

    def run(k, hin, hout, pinned):
        for c in range(chunks):
            with api.stream(pool[c % k]):
                dev_in[c].copy_(hin[c], non_blocking=pinned)
                busy()
                dev_in[c].mul_(0.5)
                hout[c].copy_(dev_in[c], non_blocking=pinned)
        for s in pool[:k]:
            api.current_stream().wait_stream(s)

    res = {}
    for mem in ("pinned", "pageable"):
        hin, hout = make(mem == "pinned")
        for k, cid in ((1, "one_stream_" + mem), (nstreams, "streams_" + mem)):
            xs = time_host(dev, lambda: run(k, hin, hout, mem == "pinned"), samples, 1, "streams " + cid)
            res[cid] = xs
            env.series(cid, "%s, %s" % ("1 stream" if k == 1 else "%d streams" % k, mem), "sample", "ms", enumerate(xs, 1))
            env.metric(cid + "_ms", summary(xs)[0])
    one, many = summary(res["one_stream_pinned"])[0], summary(res["streams_pinned"])[0]
    env.metric("total_ms", many)
    env.metric("one_stream_ms", one)
    env.metric("speedup", one / many if many > 0 else 0)
    env.metric("pinned_speedup", one / many if many > 0 else 0)
    pg1, pgk = summary(res["one_stream_pageable"])[0], summary(res["streams_pageable"])[0]
    env.metric("pageable_speedup", pg1 / pgk if pgk > 0 else 0)
    # Each stage alone, events around it.
    hin, hout = make(True)
    h2d = summary(time_device(dev, lambda: dev_in[0].copy_(hin[0], non_blocking=True), samples, 1, "streams h2d"))[0] * 1e3
    ker = summary(time_device(dev, busy, samples, 1, "streams kernel"))[0] * 1e3
    d2h = summary(time_device(dev, lambda: hout[0].copy_(dev_in[0], non_blocking=True), samples, 1, "streams d2h"))[0] * 1e3
    serial = chunks * (h2d + ker + d2h) / 1e3
    bound = max(chunks * h2d, chunks * ker, chunks * d2h) / 1e3
    env.metric("bound_ms", bound)
    env.metric("stages_sum_ms", serial)
    hidden = 100 * (serial - many) / (serial - bound) if serial > bound else 0
    env.metric("overlap_pct", max(0, min(100, hidden)))
    env.metric("h2d_us", h2d)
    env.metric("kernel_run_us", ker)
    env.metric("d2h_us", d2h)
    env.metric("h2d_gbps", n * 4 / (h2d * 1e3) if h2d > 0 else 0)
    env.metric("d2h_gbps", n * 4 / (d2h * 1e3) if d2h > 0 else 0)
    # Each op of one run on its stream (and the engine that does it), then the same chunks on one stream.

    def chunk_ops(k, prefix):
        ops = []
        for c in range(chunks):
            st, lane = pool[c % k], "%sgpu:0/stream%d" % (prefix, c % k)
            eng = (lambda e: [lane, "gpu:0/engine/" + e]) if not prefix else (lambda e: [lane])
            ops.append((st, eng("h2d"), "H2D %d" % c, lambda c=c: dev_in[c].copy_(hin[c], non_blocking=True)))
            ops.append((st, eng("compute"), "kernel %d" % c, lambda c=c: (busy(), dev_in[c].mul_(0.5))))
            ops.append((st, eng("d2h"), "D2H %d" % c, lambda c=c: hout[c].copy_(dev_in[c], non_blocking=True)))
        return ops

    for lane, lab, a, b in _op_spans(dev, api, chunk_ops(nstreams, ""), "streams timeline") + \
            _op_spans(dev, api, chunk_ops(1, "baseline:"), "streams timeline, one stream"):
        env.event(lane, lab, a, b)
    # The race: kernels on one stream read chunks another stream is still copying in, with no wait between them.
    copy_s, comp_s = pool[0], pool[1 % nstreams]
    src = [dev.pin(torch.randn(n)) for _ in range(4)]
    out = [torch.empty(n, device=dev.tdev) for _ in range(4)]
    for t in dev_in[:4]:
        t.zero_()
    race = [(copy_s, ["race:gpu:0/stream0"], "copy %d" % c, lambda c=c: dev_in[c].copy_(src[c], non_blocking=True))
            for c in range(4)]
    race += [(comp_s, ["race:gpu:0/stream1"], "kernel %d" % c, lambda c=c: torch.mul(dev_in[c], 0.5, out=out[c]))
             for c in range(4)]
    spans = _op_spans(dev, api, race, "streams race")
    for lane, lab, a, b in spans:
        env.event(lane, lab, a, b)
    race_ms = max(b for _, _, _, b in spans) / 1e3
    stale = [int((o.cpu() != (s * 0.5)).sum().item()) for o, s in zip(out, src)]
    env.metric("stale_chunks", sum(1 for s in stale if s))
    env.metric("race_chunks", 4)
    env.metric("stale_elements", sum(stale))
    env.metric("checked_elements", 4 * n)
    env.metric("race_ms", race_ms)
    env.details().update({"streams": nstreams, "memory": "pinned", "wait": False,
                          "lanes": "gpu:0/streamN and gpu:0/engine/*: the run asked for; baseline:…: the same chunks "
                                   "on one stream; race:gpu:0/stream0 copies, race:gpu:0/stream1 kernels (events "
                                   "before and after each op)"})
    env.finding("%d chunks of %d MiB (copy in, a %d µs kernel, copy out) took %s on one stream and %s on %d "
                "(%.2f×), pinned." % (chunks, chunk_mib, kernel_us, fmt_ms(one), fmt_ms(many), nstreams, one / many if many else 0, ))
    env.finding("Pageable memory: %s on one stream, %s on %d: a pageable copy holds the host until it is done."
                % (fmt_ms(pg1), fmt_ms(pgk), nstreams))
    env.finding("Without a wait between the copy stream and the compute stream, %d of 4 chunks were read before "
                "their copy finished." % sum(1 for s in stale if s))
    env.stats(samples, 1, "total_ms", summary(res["streams_pinned"])[1], "The host clock from a synchronize to the "
              "synchronize after the last chunk (copy_ with non_blocking; the kernel's %d µs: elementwise passes over a "
              "buffer sized with events so that its blocks fill every SM, as gpulab's kernel does), median of %d "
              "after a warm-up run; each stage alone with events." % (kernel_us, samples))
    return env


def exp_profile(torch, dev, facts, findings, sizes, trace_path=None):
    p = {"batch": sizes["profile_batch"], "hidden": sizes["profile_hidden"], "steps": sizes["profile_steps"],
         "pinned": False, "log_every": 1}
    env = Env("profile", facts.get("gpu") if dev.gpu else None, p)
    b, h, steps, feats, classes = p["batch"], p["hidden"], p["steps"], 1024, 10
    model = torch.nn.Sequential(torch.nn.Linear(feats, h), torch.nn.ReLU(), torch.nn.Linear(h, classes)).to(dev.tdev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    phases = ["data load", "forward", "loss", "backward", "optimizer step", "logging"]
    keys = ["data", "forward", "loss", "backward", "optimizer", "logging"]

    def step(host_ms, gpu_ev):
        t = [dev.clock()]
        evs = [dev.event() for _ in range(7)] if dev.has_events else None
        if evs:
            evs[0].record()
        x = torch.randn(b, feats).to(dev.tdev)  # data made on the host, copied over
        y = torch.randint(0, classes, (b,)).to(dev.tdev)
        t.append(dev.clock())
        if evs:
            evs[1].record()
        out = model(x)
        t.append(dev.clock())
        if evs:
            evs[2].record()
        loss = torch.nn.functional.cross_entropy(out, y)
        t.append(dev.clock())
        if evs:
            evs[3].record()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        t.append(dev.clock())
        if evs:
            evs[4].record()
        opt.step()
        t.append(dev.clock())
        if evs:
            evs[5].record()
        loss.item()  # the log line: waits for the GPU
        t.append(dev.clock())
        if evs:
            evs[6].record()
            gpu_ev.append(evs)
        for i in range(6):
            host_ms[i] += (t[i + 1] - t[i]) * 1e3
        return (t[-1] - t[0]) * 1e3

    for _ in range(3):
        step([0.0] * 6, [])
    dev.sync()
    dev.mark("warmed", "profile steps")
    runs, host_ms, gpu_ev, step_host = [], [0.0] * 6, [], []
    reps = sizes["profile_reps"]
    for r in range(reps):
        dev.sync()
        dev.mark("sample", "profile steps")
        t0 = dev.clock()
        for _ in range(steps):
            sh = step(host_ms, gpu_ev) if r == 0 else step([0.0] * 6, [])
            if r == 0:
                step_host.append(sh)
        dev.sync()
        runs.append((dev.clock() - t0) * 1e3)
    wall, iqr = summary(runs)
    gpu_ms = [0.0] * 6
    if gpu_ev:
        dev.sync()
        for evs in gpu_ev:
            for i in range(6):
                gpu_ms[i] += evs[i].elapsed_time(evs[i + 1])
    busy = sum(gpu_ms)
    for i, k in enumerate(keys):
        env.metric(k + "_host_ms", host_ms[i])
        if dev.gpu:
            env.metric(k + "_gpu_ms", gpu_ms[i])
        env.metric(k + "_pct", 100 * host_ms[i] / runs[0] if runs[0] > 0 else 0)
        env.metric(k + "_calls", steps)
    env.metric("step_ms", wall / steps)
    env.metric("wall_ms", runs[0])
    if dev.gpu:
        env.metric("gpu_busy_ms", busy)
        env.metric("gpu_step_ms", busy / steps)
        env.metric("gpu_idle_pct", 100 * (1 - busy / runs[0]) if runs[0] > 0 else 0)
    env.metric("data_prep_ms", host_ms[0])
    env.metric("biggest_phase", max(range(6), key=lambda i: host_ms[i]))
    env.series("phase_host_ms", "host time per phase (all steps)", "phase", "ms", enumerate(host_ms))
    if dev.gpu:
        env.series("phase_gpu_ms", "GPU busy time per phase (all steps)", "phase", "ms", enumerate(gpu_ms))
    env.series("step_host", "host time of each step", "step", "ms", enumerate(step_host, 1))
    env.series("runs", "wall time of each timed run", "run", "ms", enumerate(runs, 1))
    env.details().update({"model": {"batch": b, "features": feats, "hidden": h, "classes": classes,
                                    "parameters": sum(t.numel() for t in model.parameters())},
                          "table": [dict({"phase": ph, "calls": steps, "host_ms": host_ms[i],
                                          "host_ms_per_call": host_ms[i] / steps,
                                          "pct_of_step": 100 * host_ms[i] / runs[0] if runs[0] > 0 else 0},
                                         **({"gpu_ms": gpu_ms[i]} if dev.gpu else {}))
                                    for i, ph in enumerate(phases)]})
    t = 0.0
    one = step_host[-1] if step_host else 0
    share = [x / max(1e-9, sum(host_ms)) for x in host_ms]
    for i, ph in enumerate(phases):
        env.event("cpu", ph, t * 1e3, (t + one * share[i]) * 1e3)
        t += one * share[i]
    if trace_path:
        env.details()["trace"] = _profile_trace(torch, dev, step, trace_path)
    if not dev.gpu:
        env.not_measured({k: "no GPU here: the CPU does every phase itself" for k in
                          ["gpu_idle_pct", "gpu_busy_ms", "gpu_step_ms", "phase_gpu_ms"] + [k + "_gpu_ms" for k in keys]})
    big = max(range(6), key=lambda i: host_ms[i])
    env.finding("A step took %s; the biggest share of the host's time went to %s (%.0f%%)."
                % (fmt_ms(wall / steps), phases[big], 100 * host_ms[big] / max(1e-9, sum(host_ms))))
    if dev.gpu:
        env.finding("The GPU was idle %.0f%% of the time: the rest it waited for the host."
                    % env.d["metrics"]["gpu_idle_pct"])
    env.stats(reps, 1, "step_ms", iqr, "A 2-layer MLP trained %d steps a run (data made on the host and copied, "
              "forward, loss, backward, SGD, loss.item() each step); the host clock around each phase, %s for the "
              "device's share; median of %d runs after 3 warm-up steps." % (steps, timing_method(dev), reps))
    return env


def _profile_trace(torch, dev, step, path):
    """torch.profiler over a few steps, exported as the Chrome trace gpulab doctor reads."""
    dev.mark("profiler", "profile trace")  # not timed here: the trace holds its own times
    acts = [torch.profiler.ProfilerActivity.CPU]
    if dev.kind in ("cuda", "rocm"):
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    # One warm-up step the profiler sees but does not keep, then three kept: each a ProfilerStep#N.
    sched = torch.profiler.schedule(wait=0, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(activities=acts, schedule=sched, record_shapes=False) as prof:
        for _ in range(4):
            step([0.0] * 6, [])
            dev.sync()
            prof.step()
    prof.export_chrome_trace(path)
    return {"file": os.path.basename(path), "bytes": os.path.getsize(path), "steps": 3}


# ---- which experiment runs where ---------------------------------------------

EXPERIMENTS = [
    # (name, function, needs: None = any device, "gpu", "events", "memory", "streams", "graphs")
    ("device", exp_device, None),
    ("placement", exp_placement, None),
    ("memory", exp_memory, "memory"),
    ("train_step", exp_train_step, None),
    ("transfer", exp_transfer, "copies"),
    ("timing", exp_timing, "gpu"),
    ("crossover", exp_crossover, None),
    ("precision", exp_precision, "gpu"),
    ("allocator", exp_allocator, "memory"),
    ("graphs", exp_graphs, "graphs"),
    ("profile", exp_profile, None),
    ("streams", exp_streams, "streams"),
]

WHY_NOT = {
    "gpu": "it times work on a GPU, and there is none here",
    "copies": "it times copies between host memory and a GPU's own memory over a link",
    "memory": "it reads the CUDA caching allocator's counters (torch.cuda.memory_*), which this device does not have",
    "streams": "it overlaps copies and kernels on several CUDA streams, which this device does not have",
    "graphs": "CUDA graphs exist only on NVIDIA GPUs with CUDA",
}

SIZES = {
    "full": {"samples": 5, "train_steps": 100, "train_reps": 15, "timing_n": 2048, "transfer_bytes": 256 << 20,
             "precision_n": 4096, "precision_flop": 4e11, "memory_params_m": 30, "memory_batch": 4, "memory_seq_len": 256,
             "memory_budget_gib": 1, "alloc_cycles": 100, "graph_kernels": 1000,
             "graph_sweep_max": 16777216, "stream_chunk_mib": 8, "profile_batch": 512, "profile_hidden": 2048,
             "profile_steps": 50, "profile_reps": 5},
    "quick": {"samples": 3, "train_steps": 40, "train_reps": 7, "timing_n": 1024, "transfer_bytes": 16 << 20,
              "precision_n": 1024, "precision_flop": 2e10, "memory_params_m": 5, "memory_batch": 1, "memory_seq_len": 64,
              "memory_budget_gib": 0.25, "alloc_cycles": 20, "graph_kernels": 200,
              "graph_sweep_max": 65536, "stream_chunk_mib": 2, "profile_batch": 64, "profile_hidden": 256,
              "profile_steps": 10, "profile_reps": 3},
    # On a CPU the training loops are the whole run: smaller, so it ends in seconds.
    "cpu": {"profile_batch": 128, "profile_hidden": 512, "profile_steps": 20, "profile_reps": 3, "train_reps": 3},
}


def runs_on(dev, need):
    """None when the experiment runs on this device, else why not."""
    ok = {None: True, "gpu": dev.gpu, "copies": dev.kind in ("cuda", "rocm"), "memory": dev.has_memory_stats,
          "streams": dev.has_streams, "graphs": dev.has_graphs}[need]
    return None if ok else WHY_NOT[need]


def run_all(torch, dev, facts, findings, sizes, only=None, trace_path=None, say=print):
    """Every experiment the device supports: (envelopes, skipped, failed)."""
    envs, skipped, failed = [], [], []
    todo = [e for e in EXPERIMENTS if not only or e[0] in only]
    for i, (name, fn, need) in enumerate(todo, 1):
        why = runs_on(dev, need)
        if why:
            skipped.append({"experiment": name, "why": why})
            say("[%2d/%d] %-11s skipped: %s" % (i, len(todo), name, why))
            continue
        t0 = time.perf_counter()
        dev.mark("experiment", name)
        torch.manual_seed(0)
        try:
            if name == "profile":
                env = fn(torch, dev, facts, findings, sizes, trace_path=trace_path)
            else:
                env = fn(torch, dev, facts, findings, sizes)
            env.d["measured_with"] = {"kit": KIT_VERSION, "torch": torch.__version__, "platform": facts.get("platform"),
                                      "date": time.strftime("%Y-%m-%d", time.gmtime())}
            envs.append(env.d)
            say("[%2d/%d] %-11s done in %.1f s" % (i, len(todo), name, time.perf_counter() - t0))
        except Exception as e:  # one failing must not hide the others; its real message is kept
            msg = "%s: %s" % (type(e).__name__, str(e))
            failed.append({"experiment": name, "error": msg[:2000]})
            say("[%2d/%d] %-11s FAILED: %s" % (i, len(todo), name, msg.split("\n")[0][:200]))
        finally:
            if dev.kind in ("cuda", "rocm"):
                try:
                    dev.api.empty_cache()
                except Exception:
                    pass
    return envs, skipped, failed


# ---- --plan FILE: the planner's configuration, built and measured ------------
# `gpulab plan --json` predicts a training step's memory counters and time
# (docs/plan.md); --plan builds that configuration in PyTorch, the models
# written op for op as transformers writes them (GPT-2, Llama with GQA and
# SwiGLU, BERT, the small conv net: tests/plan/models.py is the reference
# the planner is checked against, and this is the same model code), trains
# a few steps after a warm-up, and puts each counter it can read beside the
# plan's prediction for that same counter (docs/measure.md, "--plan").

PLAN_VERSION = 1            # the newest `gpulab plan --json` answer ("plan": N) this kit reads
PLAN_MAX_BYTES = 256 << 10  # a plan answer is a few KiB; its settings at most 64 KiB
PLAN_MAX_PARAMS = 2e11      # beyond any one device (gpulab plan's own bounds are wider)
PLAN_MAX_TENSOR_BYTES = 1 << 42
PLAN_WARMUP = 2             # the first step makes the optimizer state; the second runs as every later one
PLAN_TENSOR_BAND = (0.95, 1.05)  # the planner's tensor figures agree with PyTorch within 5 % (docs/plan.md)
PLAN_CHOICES = {
    "arch": ("gpt2", "llama", "bert", "cnn"), "mlp": ("gelu", "gelu_tanh", "swiglu"),
    "precision": ("fp32", "amp-fp16", "amp-bf16", "bf16"), "optimizer": ("adamw", "sgd", "adafactor", "adam8bit"),
    "checkpointing": ("none", "selective", "full"), "attention": ("eager", "sdpa"),
    "loss": ("standard", "fused", "plain"), "lora_targets": ("qv", "qkvo", "all"), "head": ("lm", "classify"),
    "optimizer_impl": ("auto", "foreach", "for_loop", "fused"), "zero_grad": ("none", "zeros"),
    "backend": ("cuda", "cpu"), "layout": ("pytorch", "llmc"),
}
# (field, low, high) as docs/plan.md bounds them
PLAN_BOUNDS = (("layers", 1, 256), ("hidden", 8, 32768), ("heads", 1, 256), ("kv_heads", 1, 256),
               ("ffn", 1, 262144), ("vocab", 2, 10 ** 6), ("max_positions", 1, 1 << 20), ("seq", 1, 131072),
               ("batch", 1, 4096), ("accum", 1, 1024), ("lora_rank", 0, 1024), ("image", 8, 1024),
               ("channels", 1, 4096), ("in_channels", 1, 64), ("classes", 2, 100000))


class PlanError(Exception):
    """A plan file the kit refuses: a stable code and what to do."""

    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def _plan_number(d, key, where, low=0, high=None, required=True):
    v = d.get(key)
    if v is None and not required:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < low or \
            (high is not None and v > high):
        raise PlanError("plan_invalid", "%s.%s must be a number from %s to %s, not %s" %
                        (where, key, low, high if high is not None else "any", json.dumps(v)[:40]))
    return v


def read_plan(path):
    """The plan answer at path, checked (a dict); PlanError when refused."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(PLAN_MAX_BYTES + 1)
    except OSError as e:
        raise PlanError("plan_unreadable", "cannot read the plan file %s (%s); write one with: gpulab plan --json "
                        "... > plan.json" % (path, e.strerror or e))
    if len(raw) > PLAN_MAX_BYTES:
        raise PlanError("plan_invalid", "%s is over %d KiB: not an answer of gpulab plan --json" %
                        (path, PLAN_MAX_BYTES >> 10))
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise PlanError("plan_not_json", "%s is not JSON (%s); give the file gpulab plan --json wrote" %
                        (path, str(e)[:120]))
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        raise PlanError("plan_invalid", "%s is gpulab plan's refusal (%s: %s), not a plan: fix the settings first" %
                        (path, str(doc["error"].get("code"))[:60], str(doc["error"].get("message"))[:300]))
    if not isinstance(doc, dict) or "plan" not in doc or not isinstance(doc.get("settings"), dict) or \
            not isinstance(doc.get("memory"), dict):
        raise PlanError("plan_invalid", "%s is not an answer of gpulab plan --json (no \"plan\" version, settings "
                        "and memory)" % path)
    ver = doc["plan"]
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        raise PlanError("plan_invalid", "%s: \"plan\" must be a version number, not %s" % (path, json.dumps(ver)[:40]))
    if ver > PLAN_VERSION:
        raise PlanError("plan_too_new", "%s is a plan of version %d; this kit (%s) reads up to version %d: download "
                        "the kit from the gpulab that made the plan (its /measure.py)" % (path, ver, KIT_VERSION,
                                                                                          PLAN_VERSION))
    s, mem = doc["settings"], doc["memory"]
    for key, choices in PLAN_CHOICES.items():
        if key in s and s[key] not in choices:
            raise PlanError("plan_invalid", "settings.%s must be one of %s, not %s" %
                            (key, ", ".join(choices), json.dumps(s[key])[:40]))
    if "arch" not in s:
        raise PlanError("plan_invalid", "settings.arch is missing")
    need = ("layers", "batch", "accum") + (("image", "channels", "in_channels", "classes") if s["arch"] == "cnn" else
                                           ("hidden", "heads", "kv_heads", "ffn", "vocab", "seq"))
    for key, low, high in PLAN_BOUNDS:
        v = _plan_number(s, key, "settings", low, high, key in need)
        if v is not None and v != int(v):
            raise PlanError("plan_invalid", "settings.%s must be a whole number" % key)
    for key in ("dropout", "lora_dropout"):
        _plan_number(s, key, "settings", 0, 0.9, False)
    for key in ("allocated_bytes", "reserved_bytes", "device_bytes", "tensor_peak_bytes"):
        _plan_number(mem, key, "memory", 0, PLAN_MAX_TENSOR_BYTES)
    for where, key in (("memory", "allocated_band"), ("memory", "reserved_band"), ("memory", "device_band"),
                       ("the plan", "step_ms_band")):
        band = (mem if where == "memory" else doc).get(key)
        if band is None and key == "step_ms_band":
            continue
        if not (isinstance(band, list) and len(band) == 2):
            raise PlanError("plan_invalid", "%s.%s must be [low, high]" % (where, key))
        for i in (0, 1):
            _plan_number({"b": band[i]}, "b", "%s.%s" % (where, key), 0, PLAN_MAX_TENSOR_BYTES)
    comps = mem.get("components")
    if not isinstance(comps, list) or not 1 <= len(comps) <= 64 or not all(
            isinstance(c, dict) and isinstance(c.get("id"), str) for c in comps):
        raise PlanError("plan_invalid", "memory.components must be a list of 1 to 64 components with an id")
    for c in comps:
        _plan_number(c, "bytes", "memory.components[%s]" % c["id"][:40], 0, PLAN_MAX_TENSOR_BYTES)
    _plan_number(doc, "step_ms", "the plan", 0, 1e9)
    if doc.get("fits") is not None and not isinstance(doc.get("fits"), bool):
        raise PlanError("plan_invalid", "the plan's \"fits\" must be true, false or null (a CPU plan)")
    params = (doc.get("model") or {}).get("params") if isinstance(doc.get("model"), dict) else None
    if isinstance(params, (int, float)) and not isinstance(params, bool) and params > PLAN_MAX_PARAMS:
        raise PlanError("plan_out_of_bounds", "the plan's model has %.3g parameters, more than this kit builds "
                        "(%.0e): no one device trains it" % (params, PLAN_MAX_PARAMS))
    if s["arch"] != "cnn":
        if s["hidden"] % s["heads"] or s["heads"] % s["kv_heads"]:
            raise PlanError("plan_invalid", "settings: heads must divide hidden and kv_heads must divide heads")
    return doc


def plan_refusal(torch, dev, s):
    """Why this PyTorch on this device cannot build the plan's configuration, or None."""
    F = torch.nn.functional
    name = "PyTorch %s" % torch.__version__
    if s.get("layout", "pytorch") == "llmc":
        return "layout llmc: the plan sizes karpathy/llm.c's own program, not a PyTorch model; run llm.c itself"
    if s.get("loss", "standard") == "fused":
        return "loss fused: Liger's fused linear + cross-entropy is not part of PyTorch; plan with loss standard"
    if s.get("mlp") == "swiglu" and s["arch"] != "llama" or s["arch"] == "llama" and s.get("mlp", "swiglu") != "swiglu":
        return "mlp %s on %s: the kit builds SwiGLU in Llama models only, as transformers does" % (s.get("mlp"), s["arch"])
    if s.get("attention") == "sdpa" and not hasattr(F, "scaled_dot_product_attention"):
        return "attention sdpa: not available in this PyTorch (%s; F.scaled_dot_product_attention came with 2.0)" % name
    if s.get("optimizer") == "adafactor" and not hasattr(torch.optim, "Adafactor"):
        return "optimizer adafactor: not available in this PyTorch (%s; torch.optim.Adafactor came with 2.5)" % name
    if s.get("optimizer") == "adam8bit":
        try:
            import bitsandbytes  # noqa: F401  (8-bit Adam is bitsandbytes', not PyTorch's)
        except Exception:
            return ("optimizer adam8bit: not available in this PyTorch (8-bit Adam is bitsandbytes': "
                    "pip install bitsandbytes on a CUDA machine)")
    p = s.get("precision", "fp32")
    if p == "amp-fp16" and dev.kind == "cpu":
        return "precision amp-fp16: autocast to float16 with a GradScaler needs a GPU (the CPU's autocast is bf16)"
    if p in ("amp-bf16", "bf16") and dev.kind in ("cuda", "rocm") and hasattr(dev.api, "is_bf16_supported") and \
            not dev.api.is_bf16_supported():
        return "precision %s: this GPU has no bfloat16 (torch.cuda.is_bf16_supported() is False)" % p
    if s.get("optimizer_impl") == "fused" and dev.kind not in ("cuda", "rocm"):
        return "optimizer_impl fused: torch.optim's fused kernels run on CUDA only"
    if s.get("arch") == "cnn" and p in ("amp-bf16", "bf16") and dev.kind == "cpu":
        return "precision %s on the conv net: the CPU runs it through oneDNN's reordered buffers, not as a GPU does" % p
    return None


def plan_modules(torch, s, sdpa):
    """The plan's model as PyTorch modules (a closure over torch, so the kit imports it only when run)."""
    nn, F = torch.nn, torch.nn.functional
    ckpt_fn = __import__("torch.utils.checkpoint", fromlist=["checkpoint"]).checkpoint
    drop = float(s.get("dropout", 0.1 if s["arch"] != "llama" else 0.0))
    lora_r, lora_drop = int(s.get("lora_rank", 0)), float(s.get("lora_dropout", 0.0))
    targets = s.get("lora_targets", "qv")

    def checkpoint(fn, *args):  # reentrant, as transformers' gradient_checkpointing_enable uses it
        return ckpt_fn(fn, *args, use_reentrant=True, preserve_rng_state=False)

    class Conv1D(nn.Module):  # GPT-2's linear: addmm(bias, x, weight (in, out))
        def __init__(self, nf, nx):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
            self.bias = nn.Parameter(torch.zeros(nf))

        def forward(self, x):
            out = x.size()[:-1] + (self.weight.size(-1),)
            return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(out)

    class LoRALinear(nn.Module):  # PEFT's lora.Linear: base(x) + lora_B(lora_A(dropout(x))) * scaling
        def __init__(self, i, o, bias):
            super().__init__()
            self.base = nn.Linear(i, o, bias=bias)
            self.lora_A = nn.Linear(i, lora_r, bias=False)
            self.lora_B = nn.Linear(lora_r, o, bias=False)

        def forward(self, x):
            xd = F.dropout(x, lora_drop, self.training) if lora_drop else x
            return self.base(x) + self.lora_B(self.lora_A(xd)) * 2.0

    def linear(i, o, bias, target):
        return LoRALinear(i, o, bias) if lora_r and target else nn.Linear(i, o, bias=bias)

    def gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    def core(q, k, v, mask, causal, p, training):
        """Attention's core: transformers' eager path, or F.scaled_dot_product_attention."""
        if sdpa:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=None if causal else mask,
                                                  dropout_p=p if training else 0.0, is_causal=causal)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
        w = w + mask if mask.dtype != torch.bool else torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min,
                                                                                     dtype=w.dtype, device=w.device))
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype) if s["arch"] == "llama" else F.softmax(w, dim=-1)
        w = F.dropout(w, p, training) if p else w
        return torch.matmul(w, v)

    sel = s.get("checkpointing") == "selective"

    class GPT2Block(nn.Module):
        def __init__(self):
            super().__init__()
            h, n = s["hidden"], s.get("max_positions", 1024)
            self.a = s["heads"]
            self.ln_1, self.ln_2 = nn.LayerNorm(h), nn.LayerNorm(h)
            self.c_attn, self.c_proj = Conv1D(3 * h, h), Conv1D(h, h)
            self.c_fc, self.mlp_proj = Conv1D(s["ffn"], h), Conv1D(h, s["ffn"])
            self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n),
                                 persistent=False)

        def _attn(self, q, k, v):
            t = q.size(-2)
            return core(q, k, v, self.bias[:, :, :t, :t], sdpa, drop, self.training)

        def forward(self, x):
            b, t, h = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(h, dim=2)
            q, k, v = (z.view(b, t, self.a, h // self.a).permute(0, 2, 1, 3) for z in (q, k, v))
            o = checkpoint(self._attn, q, k, v) if sel else self._attn(q, k, v)
            o = F.dropout(self.c_proj(o.permute(0, 2, 1, 3).contiguous().view(b, t, h)), drop, self.training)
            x = o + x
            y = self.c_fc(self.ln_2(x))
            y = gelu_new(y) if s.get("mlp", "gelu_tanh") == "gelu_tanh" else F.gelu(y)
            return x + F.dropout(self.mlp_proj(y), drop, self.training)

    class RMSNorm(nn.Module):
        def __init__(self, h):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(h))

        def forward(self, x):
            dt = x.dtype
            x = x.to(torch.float32)
            x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
            return self.weight * x.to(dt)

    def rotate_half(x):
        return torch.cat((-x[..., x.shape[-1] // 2:], x[..., : x.shape[-1] // 2]), dim=-1)

    def repeat_kv(x, n):
        b, k, t, d = x.shape
        return x if n == 1 else x[:, :, None, :, :].expand(b, k, n, t, d).reshape(b, k * n, t, d)

    class LlamaBlock(nn.Module):
        def __init__(self):
            super().__init__()
            h, self.a, self.k = s["hidden"], s["heads"], s["kv_heads"]
            self.d = h // self.a
            every, qkvo = targets == "all", targets in ("qkvo", "all")
            self.input_layernorm, self.post_attention_layernorm = RMSNorm(h), RMSNorm(h)
            self.q_proj = linear(h, h, False, True)
            self.k_proj = linear(h, self.k * self.d, False, qkvo)
            self.v_proj = linear(h, self.k * self.d, False, True)
            self.o_proj = linear(h, h, False, qkvo)
            self.gate_proj = linear(h, s["ffn"], False, every)
            self.up_proj = linear(h, s["ffn"], False, every)
            self.down_proj = linear(s["ffn"], h, False, every)

        def _attn(self, q, k, v, mask):
            return core(q, k, v, mask, sdpa, drop, self.training)

        def forward(self, x, cos, sin, mask):
            b, t, h = x.shape
            r = x
            x = self.input_layernorm(x)
            q = self.q_proj(x).view(b, t, self.a, self.d).transpose(1, 2)
            k = self.k_proj(x).view(b, t, self.k, self.d).transpose(1, 2)
            v = self.v_proj(x).view(b, t, self.k, self.d).transpose(1, 2)
            c, sn = cos.unsqueeze(1), sin.unsqueeze(1)
            q, k = (q * c) + (rotate_half(q) * sn), (k * c) + (rotate_half(k) * sn)
            k, v = repeat_kv(k, self.a // self.k), repeat_kv(v, self.a // self.k)
            o = checkpoint(self._attn, q, k, v, mask) if sel else self._attn(q, k, v, mask)
            x = r + self.o_proj(o.transpose(1, 2).contiguous().reshape(b, t, h))
            y = self.post_attention_layernorm(x)
            return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y))

    class BertLayer(nn.Module):
        def __init__(self):
            super().__init__()
            h, self.a = s["hidden"], s["heads"]
            self.query, self.key, self.value, self.attn_out = (nn.Linear(h, h) for _ in range(4))
            self.attn_norm, self.out_norm = nn.LayerNorm(h, eps=1e-12), nn.LayerNorm(h, eps=1e-12)
            self.intermediate, self.output = nn.Linear(h, s["ffn"]), nn.Linear(s["ffn"], h)

        def _attn(self, q, k, v, mask):
            return core(q, k, v, mask, False, drop, self.training)

        def forward(self, x, mask):
            b, t, h = x.shape
            q, k, v = (z.view(b, t, self.a, h // self.a).permute(0, 2, 1, 3)
                       for z in (self.query(x), self.key(x), self.value(x)))
            o = checkpoint(self._attn, q, k, v, mask) if sel else self._attn(q, k, v, mask)
            o = F.dropout(self.attn_out(o.permute(0, 2, 1, 3).contiguous().view(b, t, h)), drop, self.training)
            x = self.attn_norm(o + x)
            y = F.dropout(self.output(F.gelu(self.intermediate(x))), drop, self.training)
            return self.out_norm(y + x)

    full = s.get("checkpointing") == "full"

    class LM(nn.Module):
        """*ForCausalLM / BertForMaskedLM (or a classifier): ids and labels in, the mean cross-entropy out."""

        def __init__(self):
            super().__init__()
            h, v, arch = s["hidden"], s["vocab"], s["arch"]
            self.wte = nn.Embedding(v, h)
            if arch in ("gpt2", "bert"):
                self.wpe = nn.Embedding(s.get("max_positions", 1024 if arch == "gpt2" else 512), h)
            if arch == "gpt2":
                self.blocks = nn.ModuleList([GPT2Block() for _ in range(s["layers"])])
                self.ln_f = nn.LayerNorm(h)
            elif arch == "llama":
                self.blocks = nn.ModuleList([LlamaBlock() for _ in range(s["layers"])])
                self.ln_f = RMSNorm(h)
                d = h // s["heads"]
                self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d)), persistent=False)
            else:
                self.tte = nn.Embedding(2, h)
                self.emb_norm = nn.LayerNorm(h, eps=1e-12)
                self.blocks = nn.ModuleList([BertLayer() for _ in range(s["layers"])])
                self.transform = nn.Linear(h, h)
                if s.get("head", "lm") == "lm":
                    self.ln_f = nn.LayerNorm(h, eps=1e-12)
            self.classify = arch == "bert" and s.get("head", "lm") == "classify"
            if self.classify:
                self.lm_head = nn.Linear(h, s.get("classes", 2))
            else:
                self.lm_head = nn.Linear(h, v, bias=False)
                if arch == "bert":
                    self.decoder_bias = nn.Parameter(torch.zeros(v))
                if s.get("tied", arch != "llama"):
                    self.lm_head.weight = self.wte.weight
            if lora_r:
                for n, prm in self.named_parameters():
                    if "lora_" not in n:
                        prm.requires_grad_(False)

        def forward(self, ids, labels):
            arch = s["arch"]
            b, t = ids.shape
            x = self.wte(ids)
            if lora_r:
                x.requires_grad_(True)  # PEFT's enable_input_require_grads
            if arch == "llama":
                pos = torch.arange(t, device=ids.device).unsqueeze(0)
                with torch.no_grad():
                    f = (self.inv_freq[None, :, None].float() @ pos[:, None, :].float()).transpose(1, 2)
                    emb = torch.cat((f, f), dim=-1)
                    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
                mask = torch.full((b, 1, t, t), torch.finfo(x.dtype).min, dtype=x.dtype, device=x.device).triu(1)
                for blk in self.blocks:
                    x = checkpoint(blk, x, cos, sin, mask) if full else blk(x, cos, sin, mask)
                del mask
            else:
                x = x + self.wpe(torch.arange(t, device=ids.device).unsqueeze(0))
                if arch == "bert":
                    x = self.emb_norm(x + self.tte(torch.zeros_like(ids)))
                    mask = torch.zeros((b, 1, 1, t), dtype=x.dtype, device=x.device)
                x = F.dropout(x, drop, self.training)
                for blk in self.blocks:
                    args = (x,) if arch == "gpt2" else (x, mask)
                    x = checkpoint(blk, *args) if full else blk(*args)
            if self.classify:  # the pooler on the first token, tanh, dropout, the classifier
                y = F.dropout(torch.tanh(self.transform(x[:, 0])), drop, self.training)
                return F.cross_entropy(self.lm_head(y).float(), labels[:, 0] % s.get("classes", 2))
            if arch == "bert":
                x = F.gelu(self.transform(x))
            logits = self.lm_head(self.ln_f(x))
            if arch == "bert":
                logits = logits + self.decoder_bias
            if s.get("loss", "standard") == "standard":  # transformers' ForCausalLMLoss: the logits upcast first
                logits = logits.float()
            return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            ch, size, blocks = s["in_channels"], s["image"], []
            for i in range(s["layers"]):
                blocks.append(nn.Conv2d(ch, s["channels"] << i, 3, padding=1))
                ch, size = s["channels"] << i, size // 2
            self.convs = nn.ModuleList(blocks)
            self.fc = nn.Linear(ch * size * size, s["classes"])

        def forward(self, x, labels):
            for conv in self.convs:
                x = F.max_pool2d(F.relu(conv(x)), 2)
            return F.cross_entropy(self.fc(x.flatten(1)).float(), labels)

    return CNN() if s["arch"] == "cnn" else LM()


def _storages(torch, tensors):
    """{storage address: bytes} of the tensors, each storage once (views share one)."""
    seen = {}
    for t in tensors:
        if torch.is_tensor(t) and t.numel() > 0:
            st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
            seen[st.data_ptr()] = st.nbytes()
    return seen


def plan_optimizer(torch, s, params, dev):
    name, impl = s.get("optimizer", "adamw"), s.get("optimizer_impl", "auto")
    kw = {} if impl == "auto" else {"fused": True} if impl == "fused" else {"foreach": impl == "foreach"}
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-4, **kw)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-2, momentum=0.9, **kw)
    if name == "adafactor":
        return torch.optim.Adafactor(params, lr=1e-2, **{k: v for k, v in kw.items() if k == "foreach"})
    import bitsandbytes
    return bitsandbytes.optim.AdamW8bit(params, lr=1e-4)


class PlanRun:
    """The plan's configuration built on a device; step() trains one optimizer step."""

    def __init__(self, torch, dev, s):
        self.torch, self.dev, self.s = torch, dev, s
        torch.manual_seed(0)
        sdpa = s.get("attention") == "sdpa"
        p = s.get("precision", "fp32")
        model = plan_modules(torch, s, sdpa)
        if p == "bf16" or (s.get("lora_rank") and p in ("amp-bf16", "amp-fp16")):
            # the whole model in bf16; LoRA's frozen base stored in the autocast dtype, the adapters in fp32
            half = torch.bfloat16 if p != "amp-fp16" else torch.float16
            for n, prm in model.named_parameters():
                if p == "bf16" or "lora_" not in n:
                    prm.data = prm.data.to(half)
            for n, b in model.named_buffers():
                if b.is_floating_point():
                    b.data = b.data.to(half)
        self.model = model.to(dev.tdev).train()
        self.params = [q for q in self.model.parameters() if q.requires_grad]
        self.opt = plan_optimizer(torch, s, self.params, dev)
        g = torch.Generator().manual_seed(1)
        if s["arch"] == "cnn":
            x = torch.randn(s["batch"], s["in_channels"], s["image"], s["image"], generator=g)
            self.data = (x.to(dev.tdev, torch.bfloat16 if p == "bf16" else torch.float32),
                         torch.randint(0, s["classes"], (s["batch"],), generator=g).to(dev.tdev))
        else:
            self.data = tuple(torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g).to(dev.tdev)
                              for _ in range(2))
        self.amp = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(p)
        self.scaler = None
        if p == "amp-fp16":
            amp_mod = getattr(torch, "amp", None)
            self.scaler = (amp_mod.GradScaler("cuda") if amp_mod is not None and hasattr(amp_mod, "GradScaler")
                           else torch.cuda.amp.GradScaler())
        self.census = None  # set to a dict to record what one micro-batch's forward saves
        self.saved = None
        self.grad_bytes = 0

    def _pack(self, t):
        c = self.census
        if c is not None and t.numel() > 0:
            st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
            if st.data_ptr() not in c["before"]:
                c["seen"][st.data_ptr()] = st.nbytes()
        return t

    def step(self):
        torch, s = self.torch, self.s
        accum = s["accum"]
        for micro in range(accum):
            # the census's hooks only around the one forward it counts; autocast only when the plan asks for it
            # (a disabled autocast of a device type this PyTorch's autocast lacks, MPS before 2.5, would raise)
            hooks = (torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t) if self.census is not None
                     else contextlib.nullcontext())
            cast = (torch.autocast(self.dev.tdev.type, dtype=self.amp) if self.amp is not None
                    else contextlib.nullcontext())
            with hooks, cast:
                loss = self.model(*self.data) / accum
            if self.census is not None:
                self.saved, self.census = self.census, None
            (self.scaler.scale(loss) if self.scaler else loss).backward()
            del loss
        self.grad_bytes = sum(_storages(torch, [q.grad for q in self.params]).values())
        if self.scaler:
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            self.opt.step()
        self.opt.zero_grad(set_to_none=s.get("zero_grad", "none") == "none")

    def start_census(self):
        state = [t for st in self.opt.state.values() for t in st.values() if self.torch.is_tensor(t)]
        before = _storages(self.torch, list(self.model.parameters()) + list(self.model.buffers()) + list(self.data) +
                           state)
        self.census = {"before": set(before), "seen": {}}

    def tensor_bytes(self):
        """Bytes of the parameters, the last gradients and the optimizer state, from the tensors."""
        torch = self.torch
        state = [t for st in self.opt.state.values() for t in st.values() if torch.is_tensor(t)]
        return {"weights": sum(_storages(torch, self.model.parameters()).values()),
                "gradients": self.grad_bytes, "optimizer_state": sum(_storages(torch, state).values()),
                "activations": sum(self.saved["seen"].values()) if self.saved else 0}


def is_oom(e):
    """An out-of-memory error: torch.cuda.OutOfMemoryError (1.13 on) or the older RuntimeError wording
    (CUDA and ROCm "out of memory", MPS "MPS backend out of memory", the CPU's "DefaultCPUAllocator: can't
    allocate memory")."""
    oom = getattr(getattr(sys.modules.get("torch"), "cuda", None), "OutOfMemoryError", None)
    if oom is not None and isinstance(e, oom):
        return True
    text = str(e)
    return isinstance(e, (RuntimeError, MemoryError)) and (isinstance(e, MemoryError) or "out of memory" in text or
                                                          "can't allocate memory" in text)


def _component(doc, cid):
    for c in doc["memory"]["components"]:
        if c["id"] == cid:
            return c["bytes"]
    return None


def _counter(cid, what, measured, predicted, band=None, scored=True, note=None):
    ratio = measured / predicted if scored and measured is not None and predicted else None
    row = {"id": cid, "what": what, "measured": measured, "predicted": predicted,
           "band": list(band) if band else None, "ratio": round(ratio, 4) if ratio is not None else None,
           "in_band": (band[0] <= measured <= band[1]) if scored and band and measured is not None else None}
    if note:
        row["note"] = note
    return row


def plan_measure(torch, dev, doc, steps=5, seconds=120.0, say=print, clock=time.perf_counter):
    """Builds the plan's configuration on dev, trains PLAN_WARMUP steps then up to `steps` more (stopping at the
    deadline), and returns the plan_run object of the kit's file (docs/measure.md)."""
    s = doc["settings"]
    mem = doc["memory"]
    deadline = clock() + seconds
    api = dev.api
    on_cuda = dev.kind in ("cuda", "rocm")
    out = {"plan_version": doc["plan"], "settings": s, "model": doc.get("model"), "planned_fits": doc["fits"],
           "planned_backend": s.get("backend", "cuda"), "profile": s.get("profile") if isinstance(s.get("profile"), str)
           else "a profile of its own", "device": dev.kind, "counters": [], "unavailable": [], "notes": [],
           "oom": None, "steps": {"warmup": PLAN_WARMUP, "measured": 0, "limit": steps, "deadline_s": seconds}}
    if on_cuda:
        # A previous plan of this process (the lease measures several in one) leaves its segments in the caching
        # allocator: unreleased, they would be this plan's max_memory_reserved and mem_get_info (the H100 lease of
        # 2026-11-28 read 13.1 GiB reserved for a plan of 3.9 GiB that way). Its run is garbage by now: collect it
        # and give its cache back, so each plan starts from the CUDA context alone.
        gc.collect()
        api.synchronize()
        api.empty_cache()
        free, total = api.mem_get_info()
        out["baseline_device_bytes"] = total - free  # the CUDA context and whatever else runs on the GPU
        out["baseline_reserved_bytes"] = api.memory_reserved()  # 0 unless this process holds tensors of its own
        out["device_total_bytes"] = total
        cap = mem.get("capacity_bytes")
        if isinstance(cap, (int, float)) and abs(cap - total) > 0.1 * total:
            out["notes"].append("The plan is for a device of %s; this one has %s: the verdict is the plan's card's, "
                                "the counters this run's." % (fmt_bytes(cap), fmt_bytes(total)))
        api.reset_peak_memory_stats()
    if dev.kind == "cpu" and s.get("backend", "cuda") == "cuda":
        out["notes"].append("The plan follows CUDA's rules (dropout masks, autocast lists, cuBLAS workspaces); on the "
                            "CPU `gpulab plan --backend cpu` plans what this run measures.")
    run, times, step_no, phase = None, [], 0, "building the model"
    used_peak = 0
    try:
        run = PlanRun(torch, dev, s)
        for i in range(PLAN_WARMUP + steps):
            warm = i < PLAN_WARMUP
            phase = "warm-up step %d" % (i + 1) if warm else "step %d" % (i + 1)
            step_no = i + 1
            if not warm and clock() > deadline and times:
                break
            if i == PLAN_WARMUP - 1:
                run.start_census()  # what one micro-batch's forward saves, once the optimizer state exists
            if on_cuda and i == PLAN_WARMUP:
                api.synchronize()
                api.reset_peak_memory_stats()  # the steady state: the optimizer state made, as the plan models it
            if warm:
                run.step()
                dev.sync()
                continue
            if dev.has_events:
                a, b = dev.event(), dev.event()
                a.record()
                run.step()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b))
            else:
                dev.sync()
                t0 = clock()
                run.step()
                dev.sync()
                times.append((clock() - t0) * 1e3)
            if on_cuda:
                free, total = api.mem_get_info()
                used_peak = max(used_peak, total - free)
            elif dev.kind == "mps":
                used_peak = max(used_peak, api.current_allocated_memory())
        out["steps"]["measured"] = len(times)
        out["steps"]["stopped_by"] = "count" if len(times) == steps else "deadline"
    except Exception as e:
        if not is_oom(e):
            raise
        msg = str(e).split("\n")[0][:600]
        del e
        run = None
        gc.collect()
        if on_cuda:
            api.empty_cache()
        predicted = doc["fits"] is False
        out["oom"] = {"step": step_no, "phase": phase, "predicted": predicted, "message": msg}
        out["verdict"] = "Out of memory at %s, %s: the plan %s (%s planned on %s)." % (
            phase, "as predicted" if predicted else "not predicted",
            "said it would not fit" if predicted else "said it fits" if doc["fits"] else "gave no GPU verdict",
            fmt_bytes(mem["device_bytes"]), out["profile"])
        return out
    tb = run.tensor_bytes()
    what = "bytes of the %s tensors, each storage once" if dev.kind == "cpu" else "bytes of the %s tensors"
    for cid, label in (("weights", "parameter"), ("gradients", "gradient"), ("optimizer_state", "optimizer-state")):
        pred = _component(doc, cid)
        out["counters"].append(_counter(cid, what % label, tb[cid], pred,
                                        [PLAN_TENSOR_BAND[0] * pred, PLAN_TENSOR_BAND[1] * pred] if pred else None))
    pred = _component(doc, "activations")
    out["counters"].append(_counter("activations", "bytes of the distinct storages one micro-batch's forward saves "
                                    "for backward (torch.autograd.graph.saved_tensors_hooks)", tb["activations"], pred,
                                    [PLAN_TENSOR_BAND[0] * pred, PLAN_TENSOR_BAND[1] * pred] if pred else None))
    med = statistics.median(times) if times else None
    if on_cuda:
        for cid, fn, key in (("allocated", "max_memory_allocated", "allocated"),
                             ("reserved", "max_memory_reserved", "reserved")):
            out["counters"].append(_counter(cid, "torch.cuda.%s() over the measured steps" % fn, getattr(api, fn)(),
                                            mem[key + "_bytes"], mem[key + "_band"]))
        out["counters"].append(_counter("device", "total - free of torch.cuda.mem_get_info() after each step, the "
                                        "highest (what nvidia-smi shows; the baseline before the model is %s)" %
                                        fmt_bytes(out["baseline_device_bytes"]), used_peak, mem["device_bytes"],
                                        mem["device_band"]))
        out["counters"].append(_counter("step_ms", "the median step, %s" % timing_method(dev), med, doc["step_ms"],
                                        doc.get("step_ms_band")))
    elif dev.kind == "mps":
        out["counters"].append(_counter("allocated", "torch.mps.current_allocated_memory() after each step, the "
                                        "highest: a lower bound of the step's peak (MPS keeps no peak)", used_peak,
                                        mem["allocated_bytes"], scored=False))
        drv = getattr(api, "driver_allocated_memory", None)
        out["counters"].append(_counter("reserved", "torch.mps.driver_allocated_memory(): Metal's own allocations, "
                                        "the cache included; not the CUDA allocator's counter", drv() if drv else None,
                                        mem["reserved_bytes"], scored=False))
        out["unavailable"].append({"id": "device", "why": "a Mac's GPU shares its memory: there is no mem_get_info "
                                   "and no nvidia-smi"})
        out["counters"].append(_counter("step_ms", "the median step, %s; on a Mac's GPU, not the plan's" %
                                        timing_method(dev), med, doc["step_ms"], scored=False))
    else:
        out["unavailable"] += [{"id": k, "why": "the CPU has no %s: the tensor bytes above are what a CPU can measure"
                                % w} for k, w in (("allocated", "CUDA caching allocator, so no max_memory_allocated"),
                                                  ("reserved", "CUDA caching allocator, so no max_memory_reserved"),
                                                  ("device", "GPU memory, so no mem_get_info or nvidia-smi"))]
        out["counters"].append(_counter("step_ms", "the median CPU step (the host clock): a CPU step time, not the "
                                        "plan's GPU step", med, doc["step_ms"], scored=False))
    scored = [c for c in out["counters"] if c["in_band"] is not None]
    out["verdict"] = "%d of %d counters within the plan's band%s; %s." % (
        sum(c["in_band"] for c in scored), len(scored), "" if on_cuda else " (tensor bytes: this is not a GPU)",
        "the plan gave no GPU verdict" if doc["fits"] is None else "it ran, as the plan said it would" if doc["fits"]
        else "it ran, though the plan said it would not fit")
    return out


def plan_text(pr):
    """The plan run as lines for the terminal."""
    lines = [pr["verdict"]]
    for c in pr["counters"]:
        m, p = c["measured"], c["predicted"]
        f = fmt_ms if c["id"] == "step_ms" else fmt_bytes
        lines.append("  %-16s measured %-11s planned %-11s%s" % (
            c["id"], f(m) if m is not None else "-", f(p) if p is not None else "-",
            "ratio %.3f %s" % (c["ratio"], "in band" if c["in_band"] else "OUT of band" if c["in_band"] is False
                               else "") if c["ratio"] is not None else "(not scored: not the plan's counter)"))
    for u in pr["unavailable"]:
        lines.append("  %-16s not measured: %s" % (u["id"], u["why"]))
    return lines + ["  note: " + n for n in pr["notes"]]


# ---- the file ---------------------------------------------------------------

def provenance(torch, facts, dev, quick):
    return {"kit": "gpulab-measure", "kit_version": KIT_VERSION, "schema": SCHEMA,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "device": {"kind": dev.kind, "name": facts.get("gpu") if dev.gpu else platform.processor() or platform.machine(),
                       "compute_capability": facts.get("cc"), "gpu_arch": facts.get("gpu_arch"),
                       "memory_bytes": facts.get("memory_bytes"), "sm_count": facts.get("sm_count")},
            "torch": torch.__version__, "cuda_runtime": facts.get("cuda_build"), "hip_runtime": facts.get("hip_build"),
            "driver": facts.get("driver"), "driver_cuda": facts.get("driver_cuda_smi"),
            "pcie_link": list(facts["pcie_link"]) if facts.get("pcie_link") else None,
            "platform": facts.get("platform"), "os": "%s %s" % (platform.system(), platform.release()),
            "macos": facts.get("macos"), "python": platform.python_version(),
            "sizes": "quick" if quick else "full", "timing": timing_method(dev)}


def _shrink(doc):
    """Keeps the file under MAX_FILE_BYTES: long series and timelines are thinned first."""
    text = json.dumps(doc, separators=(",", ":"))
    while len(text.encode()) > MAX_FILE_BYTES:
        longest = None
        for env in doc["results"]:
            for arr in [s["points"] for s in env["series"]] + [env["timeline"]]:
                if longest is None or len(arr) > len(longest):
                    longest = arr
        if not longest or len(longest) < 4:
            break
        del longest[1::2]
        text = json.dumps(doc, separators=(",", ":"))
    return text


def make_device(torch, kind):
    if kind in ("cuda", "rocm"):
        return Device(torch, kind, torch.cuda, torch.device("cuda:0"))
    if kind == "mps":
        return Device(torch, "mps", torch.mps, torch.device("mps"))
    return Device(torch, "cpu", None, torch.device("cpu"))


def _available_ram():
    """Bytes of memory this machine can still give (MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def main_plan(torch, facts, findings, kind, why_cpu, path, plan, out, args, say):
    """--plan FILE: the plan's configuration measured and written to out beside its prediction."""
    t_start = time.perf_counter()
    dev = make_device(torch, kind)
    s = plan["settings"]
    why = plan_refusal(torch, dev, s)
    if why is None and not dev.gpu:
        ram, need = _available_ram(), plan["memory"].get("tensor_peak_bytes", 0)
        if ram is not None and need > 0.8 * ram:
            print("gpulab measure: error plan_out_of_bounds: the plan's tensors peak at %s and this machine has %s "
                  "free: run it on the GPU it was planned for, or plan a smaller batch" %
                  (fmt_bytes(need), fmt_bytes(ram)), file=sys.stderr)
            return 1
    if why:
        print("gpulab measure: error plan_unsupported: the kit cannot build this plan here: %s." % why, file=sys.stderr)
        return 1
    say("Running the plan %s (%s) on %s%s: %d warm-up steps, then up to %d, at most %.0f s." % (
        os.path.basename(path), (plan.get("model") or {}).get("name") or s["arch"],
        facts.get("gpu") or kind.upper() if dev.gpu else "the CPU", " (%s)" % why_cpu if why_cpu else "",
        PLAN_WARMUP, args.plan_steps, args.plan_seconds))
    failed = []
    pr = None
    try:
        pr = plan_measure(torch, dev, plan, args.plan_steps, args.plan_seconds, say)
    except Exception as e:  # its real message is kept, as the experiments' are
        failed.append({"experiment": "plan", "error": ("%s: %s" % (type(e).__name__, e))[:2000]})
        say("The plan's run FAILED: %s" % failed[0]["error"].split("\n")[0][:300])
    doc = {"gpulab_measure": KIT_VERSION, "provenance": provenance(torch, facts, dev, False),
           "preflight": [{"id": fd["id"], "blocking": fd["blocking"], "title": fd["title"],
                          "evidence": fd["evidence"]} for fd in findings],
           "ran_on": dev.kind, "why_cpu": why_cpu, "results": [], "skipped": [], "failed": failed,
           "plan_run": pr, "trace": None, "seconds": round(time.perf_counter() - t_start, 1)}
    text = json.dumps(doc, separators=(",", ":"))
    with open(out, "w") as fh:
        fh.write(text)
    for line in plan_text(pr) if pr else []:
        say(line)
    say("Wrote %s. Compare it: gpulab compare %s, or open it on the gpulab page." % (out, out))
    return 4 if failed else 0


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Measure this machine's GPU (or CPU) with PyTorch for gpulab.")
    ap.add_argument("--out", default="gpulab-run.json", help="the result file (default gpulab-run.json)")
    ap.add_argument("--trace", help="the profiler trace (default: beside --out, .trace.json)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes: a minute or two, figures less representative")
    ap.add_argument("--only", help="comma-separated experiments to run (default: all)")
    ap.add_argument("--preflight", action="store_true", help="only check the environment and say what is wrong")
    ap.add_argument("--cpu", action="store_true", help="run on the CPU even when a GPU is there")
    ap.add_argument("--plan", metavar="FILE", action="append",
                    help="build and train the configuration gpulab plan --json wrote to FILE and put each counter "
                    "beside the plan's prediction (default --out gpulab-plan-run.json); given several times, each "
                    "result goes beside its plan as NAME.run.json")
    ap.add_argument("--plan-steps", type=int, default=5, help="steps measured after the warm-up, 1 to 50 (default 5)")
    ap.add_argument("--plan-seconds", type=float, default=120.0,
                    help="no measured step starts after this many seconds, 1 to 3600 (default 120)")
    args = ap.parse_args(argv)
    say = lambda s: print(s, flush=True)  # noqa: E731
    plan = None
    if args.plan is not None:
        if not 1 <= args.plan_steps <= 50 or not 1 <= args.plan_seconds <= 3600:
            ap.error("--plan-steps takes 1 to 50, --plan-seconds 1 to 3600")
        if args.out == ap.get_default("out"):
            args.out = "gpulab-plan-run.json"
        plan = []
        for path in args.plan:
            try:
                plan.append((path, read_plan(path)))
            except PlanError as e:
                print("gpulab measure: error %s: %s" % (e.code, e), file=sys.stderr)
                return 1
    try:
        import torch
    except ImportError as e:
        print("gpulab measure: PyTorch is not installed (%s). Install it first: pip install torch "
              "(https://pytorch.org/get-started/locally/ picks the build for your GPU)." % e, file=sys.stderr)
        return 1
    if tuple(_version(torch.__version__)[:2]) < (1, 13):
        print("gpulab measure: PyTorch %s is older than 1.13, the oldest this kit supports; pip install -U torch."
              % torch.__version__, file=sys.stderr)
        return 1
    t_start = time.perf_counter()
    facts = gather_facts(torch)
    findings = preflight(facts)
    say("gpulab measurement kit %s: PyTorch %s, Python %s%s" % (KIT_VERSION, facts["torch"], facts["python"],
                                                                  ", on " + facts["platform"] if facts.get("platform") else ""))
    say("Preflight:")
    for fd in findings:
        say(finding_text(fd))
        say("")
    kind, why_cpu = device_choice(facts, findings)
    if args.cpu:
        kind, why_cpu = "cpu", "asked for with --cpu"
    facts["why_cpu"] = why_cpu
    if args.preflight:
        return 0 if not any(fd["blocking"] for fd in findings) else 3
    if plan is not None:
        rc = 0
        for path, doc in plan:
            out = args.out if len(plan) == 1 else re.sub(r"(\.plan)?\.json$", "", path) + ".run.json"
            rc = max(rc, main_plan(torch, facts, findings, kind, why_cpu, path, doc, out, args, say))
        return rc
    dev = make_device(torch, kind)
    say("Running on %s%s." % (facts.get("gpu") or kind.upper() if dev.gpu else "the CPU",
                              " (%s)" % why_cpu if why_cpu else ""))
    trace = args.trace or (os.path.splitext(args.out)[0] + ".trace.json")
    only = set(args.only.split(",")) if args.only else None
    sizes = dict(SIZES["quick" if args.quick else "full"])
    if dev.kind == "cpu":
        sizes.update(SIZES["cpu"])
    envs, skipped, failed = run_all(torch, dev, facts, findings, sizes, only, trace, say)
    doc = {"gpulab_measure": KIT_VERSION, "provenance": provenance(torch, facts, dev, args.quick),
           "preflight": [{"id": fd["id"], "blocking": fd["blocking"], "title": fd["title"],
                          "evidence": fd["evidence"]} for fd in findings],
           "ran_on": dev.kind, "why_cpu": why_cpu, "results": envs, "skipped": skipped, "failed": failed,
           "trace": os.path.basename(trace) if any(e["experiment"] == "profile" for e in envs) else None,
           "seconds": round(time.perf_counter() - t_start, 1)}
    text = _shrink(doc)
    with open(args.out, "w") as fh:
        fh.write(text)
    say("Wrote %s (%d experiments, %d skipped, %d failed, %.0f KiB) in %.0f s. Compare it: gpulab compare %s, or "
        "open it on the gpulab page." % (args.out, len(envs), len(skipped), len(failed), len(text) / 1024,
                                         time.perf_counter() - t_start, args.out))
    return 0 if not failed else 4


if __name__ == "__main__" and "ipykernel" not in sys.modules:
    sys.exit(main())
