# The models the planner describes, written in plain PyTorch op for op as
# Hugging Face transformers writes them in eager mode (GPT-2: GPT2Attention,
# Conv1D, gelu_new; Llama: LlamaRMSNorm, rotary embedding, repeat_kv,
# LlamaMLP; BERT: BertSelfAttention, BertSelfOutput, BertIntermediate,
# BertOutput, the MLM head), and the small convolutional net. The planner
# (lab/plan/) counts what these keep for backward; tests/plan/torch_ref.py
# measures it. SRC names the source each op's saved tensors belong to.
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Source:
    """The activation source the ops being run belong to (read by the pack hook)."""

    def __init__(self):
        self.name = "other"

    def __call__(self, name):
        self.name = name
        return self


SRC = Source()


def dropout(x, p, training):
    SRC("dropout_masks")
    return F.dropout(x, p, training)


def saved_as_checkpoint(fn):
    """fn, then the source a checkpoint's own saves count under: a custom
    autograd Function packs what it saved after its forward returns."""

    def run(*args):
        out = fn(*args)
        SRC("checkpoints")
        return out

    return run


def run_core(fn, ckpt, *args):
    """The attention core, checkpointed when selective checkpointing is on."""
    if ckpt:
        return checkpoint(saved_as_checkpoint(fn), *args, use_reentrant=True, preserve_rng_state=False)
    return fn(*args)


class Conv1D(nn.Module):
    """GPT-2's linear layer: addmm(bias, x, weight) with weight (in, out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.weight.size(-1),)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    SRC("mlp")
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, self.a, n = c["hidden"], c["heads"], c["max_positions"]
        self.p, self.sel = c["dropout"], c["checkpointing"] == "selective"
        self.ln_1 = nn.LayerNorm(h)
        self.c_attn = Conv1D(3 * h, h)
        self.c_proj = Conv1D(h, h)
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n), persistent=False)
        self.ln_2 = nn.LayerNorm(h)
        self.c_fc = Conv1D(c["ffn"], h)
        self.mlp_proj = Conv1D(h, c["ffn"])
        self.mlp_kind = c["mlp"]

    def _attn(self, q, k, v):
        SRC("attention_scores")
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
        t = q.size(-2)
        mask = self.bias[:, :, :t, :t]
        w = torch.where(mask, w.to(w.dtype), torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype, device=w.device))
        w = F.softmax(w, dim=-1)
        w = w.type(v.dtype)
        w = dropout(w, self.p, self.training)
        SRC("attention_scores")
        return torch.matmul(w, v)

    def forward(self, x):
        b, t, h = x.shape
        residual = x
        SRC("norms")
        x = self.ln_1(x)
        SRC("attention")
        q, k, v = self.c_attn(x).split(h, dim=2)
        q = q.view(b, t, self.a, h // self.a).permute(0, 2, 1, 3)
        k = k.view(b, t, self.a, h // self.a).permute(0, 2, 1, 3)
        v = v.view(b, t, self.a, h // self.a).permute(0, 2, 1, 3)
        o = run_core(self._attn, self.sel, q, k, v)
        SRC("attention")
        o = o.permute(0, 2, 1, 3).contiguous().view(b, t, h)
        o = self.c_proj(o)
        o = dropout(o, self.p, self.training)
        x = o + residual
        residual = x
        SRC("norms")
        x = self.ln_2(x)
        SRC("mlp")
        x = self.c_fc(x)
        x = gelu_new(x) if self.mlp_kind == "gelu_tanh" else F.gelu(x)
        SRC("mlp")
        x = self.mlp_proj(x)
        x = dropout(x, self.p, self.training)
        return residual + x


class RMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        SRC("norms")
        dt = x.dtype
        x = x.to(torch.float32)
        var = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(var + self.eps)
        return self.weight * x.to(dt)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n):
    b, k, t, d = x.shape
    if n == 1:
        return x
    return x[:, :, None, :, :].expand(b, k, n, t, d).reshape(b, k * n, t, d)


class LoRALinear(nn.Module):
    """nn.Linear with a frozen weight and a trainable low-rank update (PEFT's lora.Linear, no dropout)."""

    def __init__(self, i, o, r, bias):
        super().__init__()
        self.base = nn.Linear(i, o, bias=bias)
        self.base.weight.requires_grad_(False)
        if bias:
            self.base.bias.requires_grad_(False)
        self.r = r
        if r:
            self.lora_A = nn.Linear(i, r, bias=False)
            self.lora_B = nn.Linear(r, o, bias=False)
            self.scaling = 2.0

    def forward(self, x):
        y = self.base(x)
        if self.r:
            y = y + self.lora_B(self.lora_A(x)) * self.scaling
        return y


def linear(c, i, o, bias, target):
    if c["lora_rank"] and target:
        return LoRALinear(i, o, c["lora_rank"], bias)
    return nn.Linear(i, o, bias=bias)


class LlamaBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, self.a, self.k = c["hidden"], c["heads"], c["kv_heads"]
        self.d = h // self.a
        self.sel = c["checkpointing"] == "selective"
        every = c["lora_targets"] == "all"
        self.input_layernorm = RMSNorm(h)
        self.q_proj = linear(c, h, h, False, True)
        self.k_proj = linear(c, h, self.k * self.d, False, every)
        self.v_proj = linear(c, h, self.k * self.d, False, True)
        self.o_proj = linear(c, h, h, False, every)
        self.post_attention_layernorm = RMSNorm(h)
        self.gate_proj = linear(c, h, c["ffn"], False, every)
        self.up_proj = linear(c, h, c["ffn"], False, every)
        self.down_proj = linear(c, c["ffn"], h, False, every)

    def _attn(self, q, k, v, mask):
        SRC("attention_scores")
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.d)
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(w, v)

    def forward(self, x, cos, sin, mask):
        b, t, h = x.shape
        residual = x
        x = self.input_layernorm(x)
        SRC("attention")
        q = self.q_proj(x).view(b, t, self.a, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.k, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.k, self.d).transpose(1, 2)
        c, s = cos.unsqueeze(1), sin.unsqueeze(1)
        q = (q * c) + (rotate_half(q) * s)
        k = (k * c) + (rotate_half(k) * s)
        k = repeat_kv(k, self.a // self.k)
        v = repeat_kv(v, self.a // self.k)
        o = run_core(self._attn, self.sel, q, k, v, mask)
        SRC("attention")
        o = o.transpose(1, 2).contiguous().reshape(b, t, h)
        o = self.o_proj(o)
        x = residual + o
        residual = x
        x = self.post_attention_layernorm(x)
        SRC("mlp")
        x = self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
        return residual + x


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, self.a = c["hidden"], c["heads"]
        self.d, self.p = h // self.a, c["dropout"]
        self.sel = c["checkpointing"] == "selective"
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.attn_out = nn.Linear(h, h)
        self.attn_norm = nn.LayerNorm(h, eps=1e-12)
        self.intermediate = nn.Linear(h, c["ffn"])
        self.output = nn.Linear(c["ffn"], h)
        self.out_norm = nn.LayerNorm(h, eps=1e-12)

    def _heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.a, self.d).permute(0, 2, 1, 3)

    def _attn(self, q, k, v, mask):
        SRC("attention_scores")
        s = torch.matmul(q, k.transpose(-1, -2))
        s = s / math.sqrt(self.d)
        s = s + mask
        p = F.softmax(s, dim=-1)
        p = dropout(p, self.p, self.training)
        SRC("attention_scores")
        return torch.matmul(p, v)

    def forward(self, x, mask):
        b, t, h = x.shape
        SRC("attention")
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        o = run_core(self._attn, self.sel, q, k, v, mask)
        SRC("attention")
        o = o.permute(0, 2, 1, 3).contiguous().view(b, t, h)
        o = dropout(self.attn_out(o), self.p, self.training)
        SRC("norms")
        x = self.attn_norm(o + x)
        SRC("mlp")
        y = F.gelu(self.intermediate(x))
        y = dropout(self.output(y), self.p, self.training)
        SRC("norms")
        return self.out_norm(y + x)


def checkpointed(layer, full, *args):
    if full:
        return checkpoint(saved_as_checkpoint(layer), *args, use_reentrant=True, preserve_rng_state=False)
    return layer(*args)


class LM(nn.Module):
    """A decoder (GPT-2, Llama) or an encoder with an MLM head (BERT), as
    *ForCausalLM / BertForMaskedLM: token ids and labels in, the mean
    cross-entropy out, the logits upcast to fp32 first (transformers'
    ForCausalLMLoss) and let go before backward, as the Trainer does."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        h, v, arch = c["hidden"], c["vocab"], c["arch"]
        self.full = c["checkpointing"] == "full"
        self.wte = nn.Embedding(v, h)
        if arch in ("gpt2", "bert"):
            self.wpe = nn.Embedding(c["max_positions"], h)
        if arch == "gpt2":
            self.blocks = nn.ModuleList([GPT2Block(c) for _ in range(c["layers"])])
            self.ln_f = nn.LayerNorm(h)
        elif arch == "llama":
            self.blocks = nn.ModuleList([LlamaBlock(c) for _ in range(c["layers"])])
            self.ln_f = RMSNorm(h)
            d = h // c["heads"]
            self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d)), persistent=False)
        else:
            self.tte = nn.Embedding(2, h)
            self.emb_norm = nn.LayerNorm(h, eps=1e-12)
            self.blocks = nn.ModuleList([BertLayer(c) for _ in range(c["layers"])])
            self.transform = nn.Linear(h, h)
            self.ln_f = nn.LayerNorm(h, eps=1e-12)
            self.decoder_bias = nn.Parameter(torch.zeros(v))
        self.lm_head = nn.Linear(h, v, bias=False)
        if c["tied"]:
            self.lm_head.weight = self.wte.weight
        if c["lora_rank"]:
            for n, p in self.named_parameters():
                if "lora_" not in n:
                    p.requires_grad_(False)

    def forward(self, ids, labels):
        c, arch = self.c, self.c["arch"]
        b, t = ids.shape
        SRC("embeddings")
        x = self.wte(ids)
        if c["lora_rank"]:
            x.requires_grad_(True)  # PEFT's enable_input_require_grads: every layer then keeps the same tensors
        if arch == "llama":
            SRC("attention")
            pos = torch.arange(t).unsqueeze(0)
            with torch.no_grad(), torch.autocast("cpu", enabled=False):
                f = (self.inv_freq[None, :, None].float() @ pos[:, None, :].float()).transpose(1, 2)
                emb = torch.cat((f, f), dim=-1)
                cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
            mask = torch.full((b, 1, t, t), torch.finfo(x.dtype).min, dtype=x.dtype).triu(1)
            for blk in self.blocks:
                x = checkpointed(blk, self.full, x, cos, sin, mask)
            del mask
        else:
            x = x + self.wpe(torch.arange(t).unsqueeze(0))
            if arch == "bert":
                x = x + self.tte(torch.zeros_like(ids))
                SRC("norms")
                x = self.emb_norm(x)
                mask = torch.zeros((b, 1, 1, t), dtype=x.dtype)
            x = dropout(x, c["dropout"], self.training)
            for blk in self.blocks:
                x = checkpointed(blk, self.full, x) if arch == "gpt2" else checkpointed(blk, self.full, x, mask)
        if arch == "bert":
            SRC("logits_loss")
            x = F.gelu(self.transform(x))
        SRC("norms")
        x = self.ln_f(x)
        SRC("logits_loss")
        logits = self.lm_head(x)
        if arch == "bert":
            logits = logits + self.decoder_bias
        return F.cross_entropy(logits.float().view(-1, logits.size(-1)), labels.view(-1))


class CNN(nn.Module):
    """Conv 3x3 + ReLU + 2x2 max-pool blocks, channels doubling, then a linear classifier."""

    def __init__(self, c):
        super().__init__()
        ch, size, blocks = c["in_channels"], c["image"], []
        for i in range(c["layers"]):
            out = c["channels"] << i
            blocks.append(nn.Conv2d(ch, out, 3, padding=1))
            ch, size = out, size // 2
        self.convs = nn.ModuleList(blocks)
        self.fc = nn.Linear(ch * size * size, c["classes"])

    def forward(self, x, labels):
        for conv in self.convs:
            SRC("conv")
            x = F.max_pool2d(F.relu(conv(x)), 2)
        SRC("logits_loss")
        return F.cross_entropy(self.fc(x.flatten(1)).float(), labels)


def build(c):
    torch.manual_seed(0)
    return CNN(c) if c["arch"] == "cnn" else LM(c)


def batch(c):
    g = torch.Generator().manual_seed(1)
    if c["arch"] == "cnn":
        return (torch.randn(c["batch"], c["in_channels"], c["image"], c["image"], generator=g),
                torch.randint(0, c["classes"], (c["batch"],), generator=g))
    ids = torch.randint(0, c["vocab"], (c["batch"], c["seq"]), generator=g)
    return ids, torch.randint(0, c["vocab"], (c["batch"], c["seq"]), generator=g)
