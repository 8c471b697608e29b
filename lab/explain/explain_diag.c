/* The explanations: one row per diagnosis id, its title, its text (with
 * {fact} holes filled from what the text said; a diagnosis is only reached
 * when the facts its text uses were read), the first things to try in
 * order, the lesson section that teaches it and the experiment that shows
 * it. Written for a beginner; every claim here is a general fact about
 * CUDA and PyTorch, never a guess about the learner's code. */
#include "explain_diag.h"

#include <string.h>

#include "explain_diag_mac_amd.h"

#define L1 "01-cuda-intuition"
#define L2 "02-cuda-toolbox"

static const lab_ex_diag table[] = {
    {"oom_fragmentation", "Out of memory, with the memory there but in pieces",
     "PyTorch asked the GPU for {tried} more and got nothing: only {free} of {total} was free. Yet PyTorch's own "
     "cache held {bar.cache} reserved but unallocated, more than the request. That memory is split into blocks, "
     "none big enough for {tried}: fragmentation. Your model may fit; the allocator's pieces do not.",
     {"@cuda@none Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before starting Python, so the cache can grow "
      "segments instead of leaving gaps (older PyTorch: max_split_size_mb:128).",
      "@rocm Set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True before starting Python (a ROCm build's name for it), "
      "so the cache can grow segments instead of leaving gaps.",
      "Keep tensor sizes steady between steps (pad batches to a few fixed lengths), so freed blocks fit the next ones.",
      "If it still fails, treat it as too much memory: lower the batch size or sequence length.",
      NULL},
     L1, "memory", "memory"},
    {"oom_too_much", "Out of memory: the step needs more than the GPU has",
     "PyTorch asked for {tried} more while only {free} of {total} was free. The cache had little spare, and little "
     "is held outside this process: your own training step simply needs more memory than this GPU has. Weights, "
     "gradients and optimizer state take about 16 bytes per parameter with Adam in FP32; activations grow with "
     "batch size times sequence length.",
     {"Halve the batch size (keep the effective batch with gradient accumulation).",
      "Shorten the sequence length or image size.",
      "Train in mixed precision (torch.autocast with bfloat16 or float16).",
      "Use activation checkpointing (torch.utils.checkpoint) to trade compute for memory.",
      "Use a lighter optimizer state (SGD with momentum, or an 8-bit Adam) or a smaller model.",
      NULL},
     L1, "memory", "memory"},
    {"oom_other_process", "Out of memory: most of the GPU is held outside your PyTorch",
     "PyTorch asked for {tried} more while only {free} of {total} was free, and {bar.outside_or_others} of the GPU "
     "is used outside this process's PyTorch: another process (a notebook kernel still alive, a second training "
     "run, another user's job), the GPU context, or, where the GPU shares the machine's memory (an APU), the rest "
     "of the system.",
     {"@cuda@none Run nvidia-smi and look at its Processes list: which PIDs hold memory on this GPU.",
      "@rocm Run rocm-smi --showpids and rocm-smi --showmeminfo vram: which processes hold memory on this GPU.",
      "@cuda@none Stop the process you do not need (restart an idle notebook kernel), or pick a free GPU with "
      "CUDA_VISIBLE_DEVICES.",
      "@rocm Stop the process you do not need (restart an idle notebook kernel), or pick a free GPU with "
      "HIP_VISIBLE_DEVICES.",
      "Then run again; if it still fails, it is your step's own size: see the memory section.",
      NULL},
     L1, "nvidia-smi", "memory"},
    {"oom_unreadable", "Out of memory, but the numbers are missing or worded differently",
     "This is PyTorch's out-of-memory error, but the message does not carry all the numbers needed to tell "
     "fragmentation from plain too much memory (it may be cut, or from a PyTorch version worded differently). "
     "The facts below are the ones that could be read.",
     {"Paste the whole message, from its first words (\"CUDA out of memory\", \"HIP out of memory\") to its end.",
      "Print torch.cuda.memory_summary() right after catching the error and paste it too.",
      "Meanwhile the usual first step: halve the batch size and see whether it fits.",
      NULL},
     L1, "memory", "memory"},
    {"mismatch_batch_or_model", "Two tensors on different devices",
     "An operation got tensors on two devices[ ({devices})]; every input of one operation must live on the same "
     "device. Usually the model was moved with model.to(device) but a batch field was not (or the other way round).",
     {"Move the model once: model.to(device), before creating the optimizer.",
      "Move every field of every batch: inputs, masks and labels (batch = {k: v.to(device) for k, v in batch.items()}).",
      "Check tensors created inside forward (torch.zeros(...) needs device=x.device).",
      "Run lesson 1's placement preflight: print each tensor's .device before the step.",
      NULL},
     L1, "placement", "placement"},
    {"mismatch_input_weight", "The input and the layer's weights are on different devices",
     "A layer's input is {input_type} but its weight is {weight_type}: one is on the GPU, the other on the CPU "
     "(torch.cuda.* types live on the GPU). Either the model or the batch was not moved.",
     {"Move the model: model.to(device).",
      "Move the input the same way: x = x.to(device).",
      "Run lesson 1's placement preflight: print each tensor's .device before the step.",
      NULL},
     L1, "placement", "placement"},
    {"mismatch_numpy", ".numpy() on a GPU tensor",
     "NumPy works on host memory only, and the tensor lives on the GPU. Copy it back to the host first; "
     "this copy waits for the GPU to finish.",
     {"Use tensor.detach().cpu().numpy() (or .item() for one number).",
      "Do it once per step, not per element: each copy waits for the GPU.",
      NULL},
     L1, "copies", "placement"},
    {"async_device_assert", "A kernel's assert failed: the stack trace points to the wrong line",
     "A check inside a GPU kernel failed. The GPU runs behind your Python, so the error is reported at a later "
     "call, not the line that launched the kernel. The usual cause: a class label outside 0..num_classes-1 given "
     "to cross-entropy, or an index out of range in an embedding or gather.",
     {"Rerun with CUDA_LAUNCH_BLOCKING=1 so the error is raised at the line that launched the kernel.",
      "Check labels: assert labels.min() >= 0 and labels.max() < num_classes before the loss.",
      "Check indices against the embedding's size (input_ids.max() < vocab size).",
      "Or run the step once on the CPU: the same mistake gives a readable Python error there.",
      NULL},
     L1, "async", "timing"},
    {"async_device_assert_blocking", "A kernel's assert failed, at the line the stack trace shows",
     "A check inside a GPU kernel failed. This message was printed with CUDA_LAUNCH_BLOCKING=1 (it no longer says "
     "the error may be reported at another call): each kernel finished before Python went on, so the last line of "
     "your code in the stack trace is the one that launched the failing kernel. The usual cause: a class label "
     "outside 0..num_classes-1 given to cross-entropy, or an index out of range in an embedding or gather.",
     {"Look at what that line was given: the assert names the check that failed (t < n_classes: a label; "
      "srcIndex < srcSelectDimSize: an index past a table's rows).",
      "Check labels: assert labels.min() >= 0 and labels.max() < num_classes before the loss.",
      "Check indices against the embedding's size (input_ids.max() < vocab size).",
      "Unset CUDA_LAUNCH_BLOCKING once it is fixed: it makes every launch wait for the GPU, and training slow.",
      NULL},
     L1, "async", "timing"},
    {"async_illegal_access", "A kernel read or wrote memory it does not own",
     "A GPU kernel touched an address outside its memory. Like every kernel error it is reported at a later call, "
     "so the line in the stack trace is not the one at fault. Causes: an index out of range, a tensor freed or "
     "resized while a kernel still used it, or a bug in a custom or third-party kernel.",
     {"Rerun with CUDA_LAUNCH_BLOCKING=1 to find the launching line.",
      "Check index tensors (gather, index_select, embeddings) for out-of-range values.",
      "Run the step on the CPU or with compute-sanitizer to see the first bad access.",
      NULL},
     L1, "async", "timing"},
    {"async_other", "A GPU error reported at some other call",
     "The GPU reported an error ({message}) after Python had moved on, so the stack trace shows a later line, "
     "not the cause.",
     {"Rerun with CUDA_LAUNCH_BLOCKING=1 so the error is raised where the kernel was launched.",
      "Run the same step on the CPU to get a readable error.",
      NULL},
     L1, "async", "timing"},
    {"setup_cpu_wheel", "This PyTorch was built without CUDA",
     "The installed PyTorch is a CPU-only build (wheel): it cannot use any GPU, whatever the driver. Layer: the "
     "wheel.",
     {"Check: python -c \"import torch; print(torch.__version__, torch.version.cuda)\" prints None for a CPU build.",
      "@cuda Install a CUDA build (the selector on pytorch.org gives the pip command with a cu12x index URL).",
      "@cuda Then run lesson 1's two checks: nvidia-smi, then torch.cuda.is_available().",
      "@rocm Install the ROCm build for the AMD GPU (pytorch.org's selector, ROCm: its index URL ends in rocm6.x), "
      "then check with rocm-smi and torch.cuda.is_available() (a ROCm build answers through torch.cuda).",
      "@none Find which GPU this machine has: nvidia-smi (NVIDIA), rocm-smi (AMD), or python -c \"import torch; "
      "print(torch.backends.mps.is_available())\" (a Mac, which has no CUDA at all: its GPU is the \"mps\" device).",
      "@none Then install the PyTorch build for that GPU from pytorch.org's selector, or keep this one and run on the "
      "CPU.",
      NULL},
     L1, "two-checks", "device"},
    {"setup_no_driver", "No NVIDIA driver found",
     "PyTorch could not find the NVIDIA driver: either the machine has no NVIDIA GPU, or the driver is not "
     "installed or not loaded (in a container: the GPU was not passed in). Layer: the driver.",
     {"Run nvidia-smi: if it fails too, install or load the driver (on a cluster: ask for a GPU node).",
      "In Docker, start the container with --gpus all (NVIDIA Container Toolkit).",
      "Then run lesson 1's two checks again.",
      NULL},
     L1, "two-checks", "device"},
    {"setup_driver_too_old", "The driver is older than this PyTorch's CUDA runtime",
     "The driver found is too old for the CUDA runtime this PyTorch was built with. Each CUDA version needs at "
     "least a given driver; nvidia-smi's \"CUDA Version\" is the newest the driver supports (a \"found version\" "
     "such as 10010 says the same, written major x 1000 + minor x 10: CUDA 10.1). Layer: driver vs runtime.",
     {"Compare nvidia-smi's \"CUDA Version\" with torch.version.cuda: the first must be at least the second.",
      "Update the NVIDIA driver, or install a PyTorch build for an older CUDA (e.g. cu118).",
      NULL},
     L1, "two-checks", "device"},
    {"setup_arch_unsupported", "This GPU's architecture is not in this PyTorch build",
     "The PyTorch build carries compiled kernels for some GPU architectures (sm_XX) only, and this GPU's is not "
     "among them, so no kernel can run on it. Layer: architecture.",
     {"Look up the GPU's compute capability (nvidia-smi --query-gpu=compute_cap --format=csv).",
      "Install a PyTorch build that includes it (a newer one for a new GPU; an older one for an old GPU).",
      NULL},
     L1, "two-checks", "device"},
    {"setup_smi_no_driver", "nvidia-smi cannot reach the driver",
     "nvidia-smi talks to the NVIDIA driver directly; it failed, so the driver is missing, not loaded, or does not "
     "match the kernel module (often after a driver update without a reboot). Layer: the driver.",
     {"Reboot if the driver was just updated.",
      "Check the kernel module: lsmod | grep nvidia; reinstall the driver if it is missing.",
      "In a container, pass the GPU in (--gpus all).",
      NULL},
     L1, "two-checks", "device"},
    {"setup_fork_reinit", "CUDA used in a forked process",
     "CUDA was initialised in the parent process and a child was started by fork (DataLoader workers, "
     "multiprocessing): a CUDA context cannot be copied by fork. Layer: the process model.",
     {"Use the spawn start method: torch.multiprocessing.set_start_method(\"spawn\").",
      "Do not touch CUDA in DataLoader workers or before forking: move batches to the GPU in the main process.",
      NULL},
     L2, "processes", "device"},
    {"setup_cublas", "cuBLAS failed ({cublas_status})",
     "A cuBLAS call (matrix multiply) failed. CUBLAS_STATUS_ALLOC_FAILED, and often NOT_INITIALIZED, mean cuBLAS "
     "could not get the memory it needs (its handle, its workspace); EXECUTION_FAILED is often an earlier kernel's "
     "error (an index out of range) reported here, or a build that does not match the GPU.",
     {"Rerun with CUDA_LAUNCH_BLOCKING=1 to see whether an earlier kernel is the real cause.",
      "Check memory: a smaller batch, or nvidia-smi for other processes.",
      "Check that the PyTorch build matches the GPU and driver (collect_env).",
      NULL},
     L1, "debugging", "device"},
    {"smi_reading", "nvidia-smi: the driver's view",
     "[Driver {driver}][, which supports CUDA up to {cuda}][, which runs CUDA up to {driver_cuda}]: a PyTorch built "
     "for a newer CUDA will not run on it. One row per GPU with its memory in use and utilisation. "
     "Use it for: is the driver there, which GPUs, who holds memory. Do not use it for: whether PyTorch can use "
     "CUDA (the runtime view), or how busy the GPU really is (utilisation counts any kernel running, "
     "not how much of the GPU it uses).",
     {"Check that the driver's CUDA is at least your PyTorch's torch.version.cuda.",
      "Look at the processes holding memory before blaming your own run.",
      "Then check the runtime view: python -c \"import torch; print(torch.cuda.is_available())\".",
      NULL},
     L1, "nvidia-smi", "device"},
    {"smi_memory_held_idle", "Memory full, GPU idle",
     "GPU {gpu_index} holds {gpu_held} of its memory while its utilisation is {gpu_util}: the lesson's \"memory "
     "full, GPU idle\". Memory in use says that a process holds it (PyTorch's caching allocator keeps what it once "
     "used; a notebook whose kernel is still alive keeps all of it); utilisation says whether a kernel ran during "
     "the last sample. A training run that shows this is waiting: for the data loader, for the CPU, on .item() and "
     "prints, or it is stuck, or finished while its process lives on.[ The table lists {processes} processes "
     "holding GPU memory.]",
     {"Look at the Processes list (nvidia-smi, or nvidia-smi --query-compute-apps=pid,used_memory --format=csv): "
      "is the process that holds the memory yours, and is it still running?",
      "A process that is done but alive (an idle notebook kernel) keeps its memory: stop it or restart the kernel.",
      "Watch more than one sample: nvidia-smi -l 1 (utilisation that stays near 0 while training runs means the "
      "GPU waits for the host).",
      "If it is your training, profile a step with torch.profiler and read it with gpulab doctor: it says what the "
      "GPU waited for.",
      NULL},
     L1, "nvidia-smi", "profile"},
    {"smi_gpu_taken", "This GPU is busy with another job; another one is free",
     "GPU {gpu_index} holds {gpu_held} of its memory and is {gpu_util} busy, while GPU {free_gpu} is nearly empty: "
     "another job is running on the first, and a run sent to it (cuda:0 is the first GPU the process sees) finds "
     "its memory taken and fails with out of memory.",
     {"Run on the free GPU: CUDA_VISIBLE_DEVICES={free_gpu} python train.py (inside the program it is then cuda:0).",
      "Look at the Processes list to see whose job holds the busy GPU.",
      "On a shared machine, ask the scheduler for a GPU (Slurm's --gres=gpu:1) rather than picking one by hand.",
      NULL},
     L1, "nvidia-smi", "memory"},
    {"setup_bf16_needs_sm80", "bf16 needs compute capability 8.0: this GPU is older",
     "The program asked for bfloat16, which this GPU[ ({gpu_name}, compute capability {gpu_cc})] cannot run: bf16 "
     "tensor cores came with compute capability 8.0 (A100, RTX 30xx, L4). The free T4 of Colab and Kaggle is 7.5, "
     "their P100 6.0. torch.cuda.is_bf16_supported() may still answer True there (bf16 emulated, and slower than "
     "fp16), which is how bf16 gets chosen. Layer: architecture.",
     {"Use float16 instead: --dtype=half, or torch_dtype=torch.float16 for a model; in training "
      "torch.autocast(\"cuda\", dtype=torch.float16) with torch.cuda.amp.GradScaler.",
      "Choose bf16 by the hardware, not by is_bf16_supported(): torch.cuda.get_device_capability() >= (8, 0).",
      "On Colab or Kaggle, an L4 or A100 runtime runs bf16 natively.",
      NULL},
     L2, "precision", "precision"},
    {"env_cpu_wheel_on_gpu", "A CPU-only PyTorch on a machine with a GPU",
     "PyTorch {torch} was built without CUDA (\"CUDA used to build PyTorch: None\"), yet this machine has an "
     "NVIDIA driver or GPU. The wheel is the layer at fault, not the driver.",
     {"Install a CUDA build of PyTorch (pytorch.org's selector gives the pip command with a cu12x index URL).",
      "Then check again: torch.cuda.is_available() should print True.",
      NULL},
     L1, "two-checks", "device"},
    {"env_runtime_newer_than_driver", "PyTorch's CUDA runtime is newer than the driver",
     "PyTorch {torch} uses CUDA {cuda_build}, but driver {driver} is older than that CUDA version needs. The "
     "driver must be at least as new as the runtime.",
     {"Update the NVIDIA driver.",
      "Or install a PyTorch build for an older CUDA that this driver supports.",
      NULL},
     L1, "two-checks", "device"},
    {"env_gpu_older_than_wheel", "The GPU is older than this PyTorch supports",
     "The GPU[ ({gpu})][ ({gpu_name})][, compute capability {gpu_cc}] is older than every architecture this PyTorch"
     "[ {torch}] has CUDA kernels for[ (it carries {supported_sms})]: none of its operations can run on it. Kepler "
     "cards (K80, GTX 7xx) lost their kernels with PyTorch 2, Pascal (P100, sm_60) with the builds for CUDA 12.8.",
     {"On Kaggle, choose the T4 (or L4) accelerator instead of the P100: current PyTorch builds dropped Pascal "
      "(sm_60).",
      "Use an older PyTorch release that still supports the GPU, or build PyTorch from source for its architecture.",
      "Or use a newer GPU.",
      NULL},
     L1, "two-checks", "device"},
    {"env_ptx_newer_than_driver", "The driver is older than the CUDA this PyTorch was built with",
     "Driver {driver} runs CUDA up to {driver_cuda}, and PyTorch {torch} was built with CUDA {cuda_build}. CUDA's "
     "minor version compatibility lets the build's ready-compiled kernels run on it, but code compiled for the GPU "
     "while the program runs, from PTX (torch.compile and Triton kernels, custom extensions, numba), is refused "
     "by the driver: the error names an unsupported PTX version, or PTX compiled with an unsupported toolchain. "
     "Layer: driver vs runtime.",
     {"Compare nvidia-smi's \"CUDA Version\" with torch.version.cuda: the first should be at least the second.",
      "Install the PyTorch build for the CUDA version the driver runs (pip install torch --index-url "
      "https://download.pytorch.org/whl/cu121 for CUDA 12.1, cu124 for 12.4), or update the driver (on Colab and "
      "Kaggle you cannot: pick the matching build).",
      "Plain PyTorch operations on a GPU the build has kernels for still run; gpulab's measurements use only those.",
      NULL},
     L1, "two-checks", "device"},
    {"env_arch_not_in_wheel", "This PyTorch has no kernels for this GPU's architecture",
     "The GPU ({gpu}) is {gpu_arch}; PyTorch {torch} carries kernels for {arch_list} only. torch.cuda.is_available() "
     "still answers True and memory can be allocated, but the first real operation fails: CUDA finds no kernel "
     "image for the device. Layer: architecture.",
     {"On Kaggle, choose the T4 (or L4) accelerator instead of the P100: current PyTorch builds dropped Pascal "
      "(sm_60).",
      "Or install a PyTorch build whose torch.cuda.get_arch_list() includes your GPU's sm_XX: an older one for an "
      "old GPU (builds for CUDA 12.6 and earlier still carry sm_50 and sm_60), a newer one for a new GPU.",
      NULL},
     L1, "two-checks", "device"},
    {"env_rocm_gfx_unsupported", "This ROCm PyTorch has no kernels for this AMD GPU",
     "The GPU ({gpu}) is {gpu_arch}; PyTorch {torch} (ROCm {hip_build}) carries kernels for {arch_list} only, so "
     "its operations fail: HIP reports an invalid device function. Layer: architecture.",
     {"Many consumer Radeon cards run the kernels of a supported sibling: set HSA_OVERRIDE_GFX_VERSION=10.3.0 for "
      "an RDNA2 card (gfx103x) or 11.0.0 for RDNA3 (gfx110x) before Python starts.",
      "Or install a PyTorch ROCm build whose torch.cuda.get_arch_list() lists your gfx target.",
      "Check AMD's ROCm compatibility list for your card and ROCm version.",
      NULL},
     L1, "two-checks", "device"},
    {"env_mps_unusable", "PyTorch cannot use this Mac's GPU (MPS) for honest timings",
     "On this Mac (macOS {macos}) PyTorch {torch} reports MPS available: {mps_available}. The MPS backend needs "
     "Apple silicon or a Metal GPU, macOS 12.3 or newer (recent PyTorch releases ask for 14.0) and PyTorch 1.12 or "
     "newer; timing work on it honestly needs torch.mps.synchronize (PyTorch 2.0) and MPS events (2.1). Layer: "
     "the wheel and the OS.",
     {"Update macOS (Apple menu > System Settings > General > Software Update).",
      "Update PyTorch: pip install -U torch (2.1 or newer for MPS events).",
      "Check: python -c \"import torch; print(torch.backends.mps.is_available())\" should print True.",
      "PYTORCH_ENABLE_MPS_FALLBACK=1 (run what MPS lacks on the CPU) only works when set before import torch.",
      NULL},
     L1, "two-checks", "device"},
    {"env_bf16_emulated", "bf16 on this GPU is emulated, not native",
     "torch.cuda.is_bf16_supported() answers True on this {gpu} ({gpu_arch}), yet bfloat16 tensor cores came with "
     "compute capability 8.0 (Ampere): here bf16 matmuls are emulated, slower than fp16 and often slower than fp32. "
     "The answer says a bf16 tensor can be made, not that bf16 is fast. Layer: architecture.",
     {"Train in float16 on this GPU: torch.autocast(\"cuda\", dtype=torch.float16) with torch.cuda.amp.GradScaler.",
      "Newer PyTorch asks the hardware itself with torch.cuda.is_bf16_supported(including_emulation=False).",
      "Keep bf16 for compute capability 8.0 and newer (A100, L4, RTX 30xx and later).",
      NULL},
     L2, "precision", "precision"},
    {"setup_ptx_unsupported", "The driver is older than the code it was asked to compile",
     "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (\"the provided PTX was compiled with an unsupported toolchain\"): a "
     "kernel shipped as PTX was compiled by a newer CUDA toolkit than the installed driver supports, so the driver "
     "cannot compile it for the GPU.[ This PTX is version {ptx_version}; the driver's compiler reads up to "
     "{ptx_current}.] Common on Colab and Kaggle (whose driver you cannot change) after installing packages built "
     "for a newer CUDA than the machine's driver: numba, Triton, torch.compile, custom extensions. Layer: driver vs "
     "runtime.",
     {"Compare nvidia-smi's \"CUDA Version\" (the driver's) with the CUDA the failing package was built for "
      "(torch.version.cuda, or the package's cu12x tag).",
      "Install builds for the driver's CUDA version (e.g. a cu124 build on a driver that shows CUDA 12.4), or "
      "update the driver where you can.",
      NULL},
     L1, "two-checks", "device"},
    {"setup_mps_unavailable", "PyTorch cannot use MPS on this Mac",
     "PyTorch refused the \"mps\" device: this PyTorch was built without MPS, or macOS is older than the MPS "
     "backend needs (the message names the version: 12.3 for the first builds, 13.0 or 14.0 for later ones). "
     "Layer: the wheel and the OS.",
     {"Update macOS to the version the message names (sw_vers prints yours).",
      "Install a current PyTorch for macOS on Apple silicon: pip install -U torch.",
      "Until then, run on the CPU: device = \"cuda\" if torch.cuda.is_available() else \"mps\" if "
      "torch.backends.mps.is_available() else \"cpu\".",
      NULL},
     L1, "two-checks", "device"},
    {"env_cuda_unavailable", "CUDA build, driver present, yet CUDA is not available",
     "PyTorch {torch} is a CUDA {cuda_build} build and a driver is reported, but \"Is CUDA available: False\": "
     "the runtime view fails while the driver view works. Common causes: CUDA_VISIBLE_DEVICES hides the GPUs, the "
     "GPU is in a state the runtime rejects, or the process cannot open the device files.",
     {"Print CUDA_VISIBLE_DEVICES (an empty value hides every GPU).",
      "Run python -c \"import torch; torch.zeros(1).cuda()\" to see the runtime's own error, and paste it here.",
      NULL},
     L1, "two-checks", "device"},
    {"env_consistent", "The environment's layers agree",
     "PyTorch {torch}, CUDA build {cuda_build}, CUDA available: {cuda_available}. Nothing in this report "
     "contradicts itself; if something fails, the cause is elsewhere: paste the error itself.",
     {"Paste the error message you got, with this report.", NULL},
     L1, "two-checks", "device"},
    {"summary_fragmentation", "The caching allocator's memory is fragmented or under pressure",
     "PyTorch reserved {reserved_cur} from the GPU while tensors use {allocated_cur}; cudaMalloc retries: "
     "{retries}. A retry means the allocator ran out, freed its whole cache and tried again (slow); much reserved "
     "memory that no tensor uses means the cache is split into pieces.",
     {"@cuda@none Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before starting Python.",
      "@rocm Set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True before starting Python.",
      "Keep tensor shapes steady between steps (fixed padding lengths).",
      "Lower the peak: smaller batch, mixed precision or activation checkpointing.",
      NULL},
     L2, "allocator", "allocator"},
    {"summary_ok", "The caching allocator looks healthy",
     "PyTorch reserved {reserved_cur} and tensors use {allocated_cur}; the cache's spare memory is small and the "
     "allocator never had to retry. Memory is being used by tensors themselves: to fit more, make the step smaller.",
     {"Compare the peak ({allocated_peak}) with the GPU's total: that is your headroom.", NULL},
     L2, "allocator", "allocator"},
    {"unknown", "I don't recognise this",
     "This is not one of the messages I know, so I will not guess. I looked for: PyTorch's out-of-memory messages "
     "(CUDA, HIP on an AMD card, MPS on a Mac), device mismatches, asynchronous kernel errors (device-side assert, "
     "illegal memory access), set-up failures (no driver, driver too old, CPU-only build, no kernel image, PTX newer "
     "than the driver, bf16 below compute capability 8.0, fork, cuBLAS), the MPS backend's and ROCm's own errors, "
     "nvidia-smi's table, collect_env output, and memory_summary()/memory_stats().",
     {"@none Find which GPU the machine has: nvidia-smi (NVIDIA), rocm-smi (AMD), or python -c \"import torch; "
      "print(torch.backends.mps.is_available())\" (a Mac's GPU).",
      "@cuda Run nvidia-smi: does the driver see the GPU? (the driver view)",
      "@rocm Run rocm-smi and rocminfo: does ROCm see the GPU, and which gfx target is it?",
      "@mac Run python -c \"import torch; print(torch.__version__, torch.backends.mps.is_available())\": can "
      "PyTorch use the Mac's GPU (MPS)?",
      "@cuda@rocm@none Run python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.version.hip, "
      "torch.cuda.is_available())\" (the runtime view).",
      "Run python -m torch.utils.collect_env and paste its output here with the full error.",
      NULL},
     L1, "two-checks", "device"},
};

#define NMAIN ((int)(sizeof table / sizeof table[0]))

int lab_ex_diag_count(void) { return NMAIN + lab_ex_diag_mac_amd_count; }

const lab_ex_diag *lab_ex_diag_at(int i) {
  return i < 0 ? NULL : i < NMAIN ? &table[i] : i < lab_ex_diag_count() ? &lab_ex_diag_mac_amd[i - NMAIN] : NULL;
}

const lab_ex_diag *lab_ex_diag_find(const char *id) {
  for (int i = 0; id && i < lab_ex_diag_count(); i++)
    if (strcmp(lab_ex_diag_at(i)->id, id) == 0) return lab_ex_diag_at(i);
  return &table[NMAIN - 1]; /* "unknown" */
}
