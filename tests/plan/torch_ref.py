#!/usr/bin/python3
# The planner against real PyTorch (reference 1 of docs/plan.md): each
# configuration of the grid below is built in PyTorch (tests/plan/models.py)
# and measured (tests/plan/measure.py), planned by `gpulab plan --json`
# with backend "cpu" (PyTorch's CPU autocast lists and dropout), and the
# figures compared: parameter, gradient and optimizer-state bytes, the
# activations saved for backward and the peak of allocated bytes, each
# within 5 %. Then every term of the planner is dropped in turn, and some
# configuration must notice (miss by more than 5 %): a term no
# configuration needs would be untested. TAP on stdout.
# Usage: tests/plan/torch_ref.py GPULAB_BINARY   (Debian's /usr/bin/python3 with python3-torch)
import json
import os
import subprocess
import sys

TOLERANCE = 0.05
HERE = os.path.dirname(os.path.abspath(__file__))


def grid():
    gpt2 = dict(arch="gpt2", layers=2, hidden=64, heads=4, kv_heads=4, ffn=256, mlp="gelu_tanh", vocab=500,
                tied=True, max_positions=64, dropout=0.0, seq=32, batch=2, accum=1, precision="fp32",
                optimizer="adamw", checkpointing="none", lora_rank=0, lora_targets="qv")
    llama = dict(gpt2, arch="llama", mlp="swiglu", kv_heads=2, ffn=176, tied=False, max_positions=32)
    bert = dict(gpt2, arch="bert", mlp="gelu", dropout=0.1, max_positions=64, head="lm")
    cnn = dict(arch="cnn", layers=2, channels=8, image=16, in_channels=3, classes=10, batch=4, accum=1,
               precision="fp32", optimizer="adamw", checkpointing="none", lora_rank=0, lora_targets="qv")
    rows = [("gpt2", gpt2)]
    for name, over in [("dropout", dict(dropout=0.1)), ("amp-bf16", dict(precision="amp-bf16")),
                       ("amp-bf16 dropout", dict(precision="amp-bf16", dropout=0.1)), ("bf16", dict(precision="bf16")),
                       ("sgd", dict(optimizer="sgd")), ("selective", dict(checkpointing="selective")),
                       ("full", dict(checkpointing="full")), ("full amp", dict(checkpointing="full", precision="amp-bf16")),
                       ("3 layers", dict(layers=3)), ("hidden 96, 6 heads", dict(hidden=96, heads=6, kv_heads=6, ffn=384)),
                       ("seq 64", dict(seq=64)), ("batch 4", dict(batch=4)), ("vocab 2000", dict(vocab=2000)),
                       ("accum 2", dict(accum=2)), ("gelu", dict(mlp="gelu")), ("untied", dict(tied=False)),
                       ("optimizer-step peak", dict(batch=1, seq=8, vocab=4000))]:
        rows.append(("gpt2 " + name, dict(gpt2, **over)))
    rows.append(("llama", llama))
    for name, over in [("mha", dict(kv_heads=4)), ("mqa", dict(kv_heads=1)), ("amp-bf16", dict(precision="amp-bf16")),
                       ("bf16", dict(precision="bf16")), ("sgd", dict(optimizer="sgd")),
                       ("selective", dict(checkpointing="selective")), ("full", dict(checkpointing="full")),
                       ("tied", dict(tied=True)), ("lora qv", dict(lora_rank=4)),
                       ("lora all", dict(lora_rank=4, lora_targets="all")),
                       ("lora full ckpt", dict(lora_rank=4, checkpointing="full")),
                       ("seq 64 batch 1", dict(seq=64, max_positions=64, batch=1))]:
        rows.append(("llama " + name, dict(llama, **over)))
    rows.append(("bert", bert))
    # (BERT's MLM head runs LayerNorm on gelu's bf16 output: CUDA autocast runs layer_norm in fp32,
    # the CPU autocast of torch 1.13 does not and fails, so BERT is measured without autocast.)
    for name, over in [("bf16", dict(precision="bf16")), ("full", dict(checkpointing="full")),
                       ("selective sgd", dict(checkpointing="selective", optimizer="sgd"))]:
        rows.append(("bert " + name, dict(bert, **over)))
    # (The conv net under the CPU's bf16 autocast goes through oneDNN's reordered weights and buffers,
    # which a GPU does not have: it is measured in fp32 only.)
    rows.append(("cnn", cnn))
    rows.append(("cnn sgd 3 blocks", dict(cnn, layers=3, optimizer="sgd")))
    return rows


def plan(binary, c):
    settings = {k: v for k, v in c.items()}
    settings["backend"] = "cpu"
    out = subprocess.run([binary, "plan", "--json", "--settings", "-"], input=json.dumps(settings),
                         capture_output=True, text=True, timeout=60)
    answer = json.loads(out.stdout)
    if "error" in answer:
        raise RuntimeError(answer["error"]["message"])
    mem = answer["memory"]
    comp = {c["id"]: c for c in mem["components"]}
    return {
        "weights": comp["weights"]["bytes"],
        "gradients": comp["gradients"]["bytes"],
        "optimizer_state": comp["optimizer_state"]["bytes"],
        "activations": comp["activations"]["bytes"],
        "sources": {s["id"]: s["bytes"] for s in comp["activations"].get("sources", [])},
        "peak": mem["tensor_peak_bytes"],
        "at_peak": mem["at_peak"],
    }


FIGURES = ["weights", "gradients", "optimizer_state", "activations", "peak"]
# The terms each of which some configuration must notice when it is dropped
# (the saved token-position ids of the embeddings are a few hundred bytes:
# reported, not required).
SOURCES = ["norms", "attention", "attention_scores", "mlp", "dropout_masks", "logits_loss", "autocast_copies",
           "checkpoints", "conv", "optimizer_step"]
REQUIRED = (["weights", "gradients", "optimizer_state"] + ["activations: " + s for s in SOURCES[:-1]] +
            ["peak: " + k for k in ["activations", "weights", "gradients", "optimizer_state", "buffers"]] +
            ["peak: activations: " + s for s in SOURCES if s != "checkpoints"])
# (At the peak, activations are counted by the source that made them: a
# checkpoint keeps tensors other layers made, so "checkpoints" is a census
# source only.)


def cpu_seconds():
    """CPU time of this process and the planner runs it waited for: what
    the grid costs, the same on a busy machine (wall time is not)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main():
    if len(sys.argv) != 2:
        print("usage: torch_ref.py GPULAB_BINARY", file=sys.stderr)
        return 2
    sys.path.insert(0, HERE)
    import measure  # torch: a missing torch fails here, it never skips

    started = cpu_seconds()
    rows, n, failed = [], 0, 0
    print("TAP version 13")
    for name, c in grid():
        got, want = plan(sys.argv[1], c), measure.measure(c)
        rows.append((name, got, want))
        for f in FIGURES:
            if want[f] == 0 and got[f] == 0:
                continue
            ratio = got[f] / want[f] if want[f] else float("inf")
            n += 1
            ok = abs(ratio - 1) <= TOLERANCE
            failed += not ok
            print(f"{'' if ok else 'not '}ok {n} - {name}: {f} planned {got[f]} measured {want[f]} (ratio {ratio:.4f})")
            if not ok and f == "activations":
                print(f"  # sources planned {got['sources']}")
                print(f"  # sources measured {want['sources']}")
    # Every term must matter to some configuration.
    terms = {}
    for name, got, want in rows:
        for f in ["weights", "gradients", "optimizer_state"]:
            terms.setdefault(f, []).append((got[f], got[f], want[f]))
        for src, b in got["sources"].items():
            terms.setdefault("activations: " + src, []).append((b, got["activations"], want["activations"]))
        for part, b in got["at_peak"].items():
            if part != "sources":
                terms.setdefault("peak: " + part, []).append((b, got["peak"], want["peak"]))
        for src, b in got["at_peak"]["sources"].items():
            terms.setdefault("peak: activations: " + src, []).append((b, got["peak"], want["peak"]))
    for term in REQUIRED + sorted(t for t in terms if t not in REQUIRED):
        cases = terms.get(term, [])
        worst = max((abs((total - b) / want - 1) for b, total, want in cases if want), default=0)
        n += 1
        ok = worst > TOLERANCE or term not in REQUIRED
        failed += not ok
        note = "" if term in REQUIRED else " # not required: too small to matter"
        print(f"{'' if ok else 'not '}ok {n} - dropping {term} is noticed (worst miss without it {worst:.1%}){note}")
    elapsed = cpu_seconds() - started
    n += 1
    failed += elapsed >= 60
    print(f"{'' if elapsed < 60 else 'not '}ok {n} - the grid of {len(rows)} configurations took {elapsed:.1f} s of CPU (< 60 s)")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
