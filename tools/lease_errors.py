#!/usr/bin/env python3
"""Real GPU failure messages for explain's corpus, made by the GPU lease
(tools/gpu_session.sh, step errors) with the PyTorch and GPU it finds:
each mistake below runs as its own `python3 -c` (a device-side assert
poisons its process's CUDA context), all at once, and what the process
printed on stderr is kept as a learner would paste it. OUT/NAME.txt per
message and OUT/errors.json, one entry each in the corpus format of
tests/explain/README.md: the command, the PyTorch version, the kind the
mistake provokes; the facts and the first diagnosis are left for a person
to write from the text (the lease records what PyTorch printed, not what
it means). Without a GPU every mistake fails at the same first step, so
only the first runs, and its entry says so (kind setup).

    python3 tools/lease_errors.py OUT
"""
import json
import os
import shlex
import subprocess
import sys
import time

import torch

# (name, kind, what the learner did, program, extra environment)
MISTAKES = [
    ("device-mismatch", "device_mismatch", "a model moved to the GPU given a batch left on the CPU",
     "import torch\nmodel = torch.nn.Linear(16, 4).to('cuda')\nx = torch.randn(8, 16)\nprint(model(x))\n", {}),
    ("oom", "oom", "a tensor as large as the whole GPU asked for while 1 GiB is already in use",
     "import torch\nkeep = torch.empty(1 << 30, dtype=torch.uint8, device='cuda')\n"
     "free, total = torch.cuda.mem_get_info()\nbig = torch.empty(total, dtype=torch.uint8, device='cuda')\n", {}),
    ("assert-cross-entropy", "async_error", "cross-entropy given a label past its classes (the assert surfaces later)",
     "import torch\nlogits = torch.randn(4, 3, device='cuda')\nlabels = torch.tensor([0, 1, 2, 3], device='cuda')\n"
     "loss = torch.nn.functional.cross_entropy(logits, labels)\nprint(loss.item())\n", {}),
    ("assert-cross-entropy-blocking", "async_error", "the same with CUDA_LAUNCH_BLOCKING=1, as the message advises",
     "import torch\nlogits = torch.randn(4, 3, device='cuda')\nlabels = torch.tensor([0, 1, 2, 3], device='cuda')\n"
     "loss = torch.nn.functional.cross_entropy(logits, labels)\nprint(loss.item())\n", {"CUDA_LAUNCH_BLOCKING": "1"}),
    ("assert-embedding", "async_error", "an embedding looked up past the rows of its table",
     "import torch\nemb = torch.nn.Embedding(10, 4).to('cuda')\nids = torch.tensor([3, 12], device='cuda')\n"
     "print(emb(ids).sum().item())\n", {}),
]
DEADLINE_S = 120


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cuda = torch.cuda.is_available()
    where = (f"{torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}, CUDA {torch.version.cuda}" if cuda
             else f"a machine without a usable GPU, PyTorch {torch.__version__}")
    date = time.strftime("%Y-%m-%d", time.gmtime())
    mistakes = MISTAKES if cuda else MISTAKES[:1]
    procs = [(m, subprocess.Popen([sys.executable, "-c", m[3]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=dict(os.environ, **m[4]))) for m in mistakes]
    end = time.monotonic() + DEADLINE_S
    cases = []
    for (name, kind, what, program, extra), p in procs:
        try:
            _, err = p.communicate(timeout=max(1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            print(f"errors: {name}: no answer in {DEADLINE_S} s, left out")
            continue
        text = err.decode("utf-8", "replace").strip("\n")
        if p.returncode == 0 or not text:
            print(f"errors: {name}: ran without an error (exit {p.returncode}), left out")
            continue
        with open(os.path.join(out, name + ".txt"), "w") as f:
            f.write(text + "\n")
        env = "".join(f"{k}={v} " for k, v in extra.items())
        cases.append({"id": name, "file": name + ".txt",
                      "source": f"generated: on {where}, by tools/lease_errors.py in a GPU lease on {date}: {what}",
                      "command": f"{env}python3 -c {shlex.quote(program)}", "torch": torch.__version__,
                      "kinds": [kind if cuda else "setup"], "facts": {}, "diagnosis": None})
        # the log shows the message's last line, cut at 160 characters and marked so
        # (the H100's OOM line is 688): the whole text is NAME.txt
        last = text.splitlines()[-1]
        print(f"errors: {name}: {last[:160]}" + (f" [cut: the whole message is {name}.txt]" if len(last) > 160 else ""))
    if not cuda:
        print(f"errors: no usable GPU: {len(MISTAKES) - 1} other mistakes not run (they fail the same way)")
    with open(os.path.join(out, "errors.json"), "w") as f:
        json.dump({"note": "PyTorch's own messages from a GPU lease (tools/gpu_session.sh); facts and diagnosis "
                           "are to be written by a person from each text", "cases": cases}, f, indent=1)
    return 0 if cases else 1


if __name__ == "__main__":
    sys.exit(main())
