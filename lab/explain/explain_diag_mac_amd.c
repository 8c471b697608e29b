/* The explanations of what a Mac (the MPS backend) and an AMD card (ROCm,
 * HIP) print: the rows explain_diag.c's table is searched with, in the same
 * form. No step here names nvidia-smi or a CUDA wheel: a Mac has neither,
 * and an AMD card's tools are rocm-smi and rocminfo. Sources: PyTorch's MPS
 * notes and environment variables (docs/source/notes/mps.rst,
 * mps_environment_variables), AMD's ROCm documentation (groups, supported
 * GPUs, HSA_OVERRIDE_GFX_VERSION). */
#include "explain_diag_mac_amd.h"

#include <stddef.h>

#define L1 "01-cuda-intuition"
#define L2 "02-cuda-toolbox"

const lab_ex_diag lab_ex_diag_mac_amd[] = {
    {"mps_oom_too_much", "Out of memory on the Mac's GPU: the step needs more than MPS allows",
     "PyTorch's MPS allocator holds {mps_allocated} and asked for {tried} more; with {other_allocations} that Metal "
     "holds besides, that passes the limit of {max_allowed} (\"max allowed\"). A Mac's GPU shares the machine's "
     "unified memory with everything else, so PyTorch stops at PYTORCH_MPS_HIGH_WATERMARK_RATIO (1.7 by default) "
     "times the memory Metal recommends for the GPU. Sizes in this message are binary whatever the unit says: "
     "18.13 GB and 18.13 GiB are one limit.",
     {"Halve the batch size (keep the effective batch with gradient accumulation).",
      "Shorten the sequence length or image size, or use a smaller model.",
      "Use activation checkpointing (torch.utils.checkpoint) to trade compute for memory.",
      "Close other programs that use much memory: on a Mac they share it with the GPU.",
      "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes the limit, but then the whole machine can run out of memory "
      "(swapping, or a crash): make the step smaller first.",
      NULL},
     L1, "memory", "memory"},
    {"mps_oom_other_allocations", "Out of memory on the Mac: much of the limit is held outside PyTorch's allocator",
     "Of the limit of {max_allowed}, {other_allocations} are other allocations: memory Metal holds for this process "
     "outside PyTorch's MPS allocator (buffers made by other libraries, caches, memory not yet given back), against "
     "{mps_allocated} of PyTorch's own tensors. The request of {tried} did not fit in what was left.",
     {"Print torch.mps.current_allocated_memory() and torch.mps.driver_allocated_memory() around the failing "
      "step: the second minus the first is what is held outside the tensors.",
      "Call torch.mps.empty_cache() between stages (after loading, between validation and training), and delete "
      "what you no longer need first.",
      "Close other programs that use the GPU or much memory: unified memory is shared with them.",
      "Then lower the step's memory (a smaller batch, shorter sequences); raise "
      "PYTORCH_MPS_HIGH_WATERMARK_RATIO last: past the limit the whole machine can run out of memory.",
      NULL},
     L1, "memory", "memory"},
    {"mps_oom_unreadable", "Out of memory on the Mac, but the numbers are missing",
     "This is the MPS backend's out-of-memory error, but the message does not carry all its numbers (MPS allocated, "
     "other allocations, max allowed, the request), so what filled the limit cannot be told. The facts below are "
     "the ones that could be read.",
     {"Paste the whole message, from \"MPS backend out of memory\" to \"(may cause system failure)\".",
      "Print torch.mps.current_allocated_memory() and torch.mps.driver_allocated_memory() when it fails.",
      "Meanwhile the usual first step: halve the batch size and see whether it fits.",
      NULL},
     L1, "memory", "memory"},
    {"mps_placeholder_storage", "An input of this operation is not on the Mac's GPU",
     "On MPS, \"Placeholder storage has not been allocated\" means that one of the operation's tensors is not on "
     "the mps device while the others are: usually an input, or a tensor made inside forward (torch.zeros(...), a "
     "mask, an index, a buffer) without device=. It is the Mac's way of saying \"two devices\".",
     {"Move every input of the step: x = x.to(\"mps\") (and every field of the batch).",
      "Make tensors inside forward on the input's device: torch.zeros(..., device=x.device).",
      "Print each tensor's .device before the failing line: one of them says cpu.",
      "Move the model once, model.to(\"mps\"), before creating the optimizer.",
      NULL},
     L1, "placement", "placement"},
    {"mps_float64", "float64 is not supported on the Mac's GPU",
     "The MPS framework has no float64, so a float64 tensor cannot be moved to the mps device. NumPy makes float64 "
     "by default, and so does torch.tensor of Python floats with dtype=torch.float64.[?from_numpy This paste shows "
     "torch.from_numpy, which keeps the array's float64.]",
     {"Convert on the CPU, before moving: torch.from_numpy(a).float().to(\"mps\"), or a.astype(np.float32) first.",
      "Look for dtype=torch.float64 or .double() in the code and use float32.",
      "The error comes from the move itself: the .float() must come before .to(\"mps\").",
      NULL},
     L2, "precision", "precision"},
    {"mps_bf16_unsupported", "bfloat16 is not supported on this Mac's GPU",
     "The MPS backend refused bfloat16: recent PyTorch releases run bf16 on MPS only from macOS 14 (Sonoma) on, "
     "older ones not at all.[ This message asks for macOS {macos_min} or newer.]",
     {"Use float16 or float32 on the Mac: load the model with torch_dtype=torch.float16 (or float32).",
      "Or update macOS to 14 or newer, and PyTorch: pip install -U torch.",
      "Check: python -c \"import torch; print(torch.__version__, torch.backends.mps.is_available())\".",
      NULL},
     L2, "precision", "precision"},
    {"mps_op_not_implemented", "This operation has no MPS kernel in your PyTorch",
     "This operation[ ({op})] has no implementation for the MPS device in the installed PyTorch, so it cannot run "
     "on the Mac's GPU. The fallback runs such operations on the CPU instead: slower, and each one copies its "
     "tensors between the GPU and the CPU.",
     {"Set PYTORCH_ENABLE_MPS_FALLBACK=1 before Python starts (export PYTORCH_ENABLE_MPS_FALLBACK=1 in the shell): "
      "PyTorch reads it once, when torch is imported.",
      "Update PyTorch (pip install -U torch): operators come to MPS release by release.",
      "Or run that part on the CPU yourself: .cpu() before it, .to(\"mps\") after.",
      NULL},
     L1, "copies", "transfer"},
    {"mps_fallback_set_too_late", "The fallback variable is set, but too late",
     "The paste shows PYTORCH_ENABLE_MPS_FALLBACK set to 1, yet the operation[ ({op})] was still refused: PyTorch "
     "reads the variable once, when torch is imported, so setting it afterwards (os.environ in the program after "
     "import torch, a notebook cell after the kernel imported it, a library that imports torch first) changes "
     "nothing.",
     {"Set it in the shell before starting Python: export PYTORCH_ENABLE_MPS_FALLBACK=1 (or in the script's first "
      "lines, before any import that imports torch).",
      "In a notebook: set it, then restart the kernel so that torch is imported again.",
      "Check it is seen: print(os.environ.get(\"PYTORCH_ENABLE_MPS_FALLBACK\")) right before import torch.",
      NULL},
     L1, "two-checks", "device"},
    {"setup_no_cuda_on_mac", "There is no CUDA on a Mac: use the mps device",
     "The code asks for CUDA (.cuda(), .to(\"cuda\"), device=\"cuda\"), but PyTorch on macOS is never built with "
     "CUDA and no driver brings it to a Mac: Apple's GPU is used through the MPS backend, the device \"mps\". "
     "Layer: the wheel and the OS.",
     {"Choose the device once and use it everywhere instead of .cuda(): device = \"cuda\" if "
      "torch.cuda.is_available() else \"mps\" if torch.backends.mps.is_available() else \"cpu\".",
      "Check MPS: python -c \"import torch; print(torch.backends.mps.is_available())\" should print True.",
      "Look for a --device flag in the program (--device mps); code that needs CUDA-only extensions does not run "
      "on a Mac at all.",
      NULL},
     L1, "two-checks", "device"},
    {"setup_rocm_invalid_device", "No code for this AMD GPU's architecture",
     "The ROCm build of PyTorch, or a library it uses (rocBLAS, MIOpen), has no code compiled for this GPU's gfx "
     "target[ ({gfx})]: HIP reports an invalid device function, or finds no code object for the device "
     "(hipErrorNoBinaryForGpu), or rocBLAS finds no Tensile library for it. Consumer Radeon cards and APUs are often "
     "missing from a ROCm release's list. Layer: architecture.",
     {"Find the card's target: rocminfo | grep gfx, and the build's: python -c \"import torch; "
      "print(torch.cuda.get_arch_list())\".",
      "Install a PyTorch ROCm build whose list has the target (a newer ROCm release, or a build made for it); "
      "AMD's compatibility list says which ROCm supports which card.",
      "HSA_OVERRIDE_GFX_VERSION (10.3.0 for an RDNA2 card, 11.0.0 for RDNA3), set before Python starts, makes ROCm "
      "load a close supported target's code: it works only when the two chips run the same instructions, and "
      "otherwise crashes or computes wrong results, so check the results against the CPU.",
      NULL},
     L1, "two-checks", "device"},
    {"hip_rocm_wheel_on_nvidia", "A ROCm (AMD) build of PyTorch on an NVIDIA machine",
     "This PyTorch was built for AMD GPUs (ROCm, HIP) and finds no code for the GPU, and the paste names an NVIDIA "
     "GPU: a ROCm build cannot use an NVIDIA card at all. The installer picked the wrong build. Layer: the wheel.",
     {"Check: python -c \"import torch; print(torch.__version__, torch.version.hip, torch.version.cuda)\": a "
      "+rocm version (torch.version.hip set) is the ROCm build.",
      "Install the CUDA build instead (pytorch.org's selector; a launcher's TORCH_COMMAND or --index-url says which "
      "build it installs).",
      "Then check from PyTorch: python -c \"import torch; print(torch.cuda.is_available(), "
      "torch.cuda.get_device_name(0))\".",
      NULL},
     L1, "two-checks", "device"},
    {"hip_no_gpu", "PyTorch's ROCm build sees no AMD GPU",
     "A ROCm build of PyTorch found no GPU it can use: the card is hidden from this process (HIP_VISIBLE_DEVICES or "
     "ROCR_VISIBLE_DEVICES, a container started without /dev/kfd and /dev/dri), the user may not open it (the "
     "render and video groups), ROCm does not support the card (under WSL only the cards AMD lists for it), or the "
     "kernel driver is not loaded. Layer: the driver.",
     {"Run rocm-smi and rocminfo: does ROCm list the GPU and its gfx target?",
      "Check the groups: groups should list render and video (sudo usermod -aG render,video $USER, then log in "
      "again); in Docker pass --device=/dev/kfd --device=/dev/dri --group-add video.",
      "Print HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES (an empty value hides every GPU).",
      "If rocminfo lists the card but PyTorch does not, the card's gfx target may not be supported by this ROCm.",
      NULL},
     L1, "two-checks", "device"},
    {"hip_miopen", "MIOpen (AMD's convolution library) failed",
     "MIOpen runs convolutions and normalisations on AMD GPUs. It compiles many of its kernels when they are first "
     "used and keeps them in a database; \"Code object build failed\", an unknown status or \"incorrect params\" "
     "mean it could not build or find a kernel for this GPU and this layer. Common causes: a gfx target this "
     "MIOpen does not support, a MIOpen that does not match the ROCm runtime (a self-built PyTorch, /opt/rocm mixed "
     "with a wheel's own libraries), or a cache directory it cannot write. Layer: architecture.",
     {"Check that PyTorch, MIOpen and ROCm come from one release: a pip ROCm wheel carries its own libraries; do not "
      "mix them with /opt/rocm's.",
      "Give MIOpen a writable cache: set MIOPEN_USER_DB_PATH to a directory you own.",
      "To confirm MIOpen is the cause, run once with torch.backends.cudnn.enabled = False (PyTorch's own, slower "
      "convolutions on ROCm).",
      "Check the card's gfx target (rocminfo | grep gfx) against AMD's support list for this ROCm.",
      NULL},
     L1, "debugging", "device"},
    {"hip_permission", "This user may not open the AMD GPU (/dev/kfd)",
     "ROCm opens /dev/kfd and /dev/dri/renderD*, and the system refused (\"Permission denied\"): the user is not in "
     "the groups that may open them (render, and on older systems video), or a container was started without them. "
     "Layer: the driver.",
     {"Add yourself to the groups: sudo usermod -aG render,video $USER, then log out and in (groups should list "
      "both).",
      "In Docker: --device=/dev/kfd --device=/dev/dri --group-add video --group-add render.",
      "Check again: rocminfo should list the GPU.",
      NULL},
     L1, "two-checks", "device"},
    {"hip_kfd_unavailable", "/dev/kfd cannot be opened: the kernel driver does not serve this GPU",
     "rocminfo could not open /dev/kfd, and not for want of permission (the user is in the render group): ROCm's "
     "kernel driver (amdgpu's KFD) refused the GPU. Old cards (GCN before gfx8, such as Pitcairn) and some APUs "
     "are not served by KFD, or the card is driven by the older radeon driver. Layer: the driver.",
     {"Read the kernel's own words: sudo dmesg | grep -i kfd (\"not supported in kfd\" names the card).",
      "Check which driver runs the card: lspci -k (\"Kernel driver in use: amdgpu\").",
      "Check the card against AMD's ROCm support list: a card KFD does not serve cannot run ROCm; use the CPU or "
      "another GPU.",
      NULL},
     L1, "two-checks", "device"},
};

const int lab_ex_diag_mac_amd_count = (int)(sizeof lab_ex_diag_mac_amd / sizeof lab_ex_diag_mac_amd[0]);
