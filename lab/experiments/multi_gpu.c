/* multi_gpu: a model of one data parallel training step on 1..N GPUs of a
 * profile, joined by PCIe or NVLink (lab/sim/peer_link.h), as
 * torch.nn.DataParallel (DP) and DistributedDataParallel (DDP) run it, with
 * GPU 0's memory for each; and two things a process with several GPUs
 * meets first: a step whose tensors are on two GPUs, and the renumbering
 * CUDA_VISIBLE_DEVICES makes. Simulated only: no server's live run has
 * several GPUs (the table's gpu column sim). */
#include "multi_gpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "peer_link.h"
#include "units.h"

static const char *const link_choices[] = {"pcie", "nvlink", NULL};
static const char *const batch_on_choices[] = {"cuda:0", "cuda:1", NULL};
static const char *const visible_choices[] = {"unset", "1", "1,0", "2,3", "3,1", NULL};

LAB_PARAMS_DEFINE(multi_gpu)

/* A sample is a 3×224×224 float32 image and its output 1000 float32
 * logits (an ImageNet classifier); backward computes twice the forward's
 * flops. The forward launches 160 kernels (about ResNet-50's), the
 * backward twice as many. */
#define SAMPLE_BYTES (3.0 * 224 * 224 * 4)
#define OUTPUT_BYTES (1000.0 * 4)
#define FWD_KERNELS 160.0
/* DDP reduces gradients in buckets of 25 MiB (bucket_cap_mb's default);
 * DataParallel broadcasts and reduces in chunks of 10 MiB (comm's
 * buffer_size default). */
#define DDP_BUCKET_BYTES (25.0 * 1048576)
#define DP_CHUNK_BYTES (10.0 * 1048576)
#define MAX_GPUS 8

typedef struct step {
  double dp_ms, ddp_ms;           /* one step */
  double dp_comm_ms;              /* DP's copies between GPUs (broadcast, scatter, gather, reduce) */
  double ddp_exposed_ms;          /* DDP's all-reduce left after backward ends */
  double ddp_allreduce_ms;        /* DDP's all-reduce in all, hidden or not */
  double dp_gpu0, ddp_gpu0;       /* GPU 0's memory, bytes */
} step;

typedef struct model {
  double params, grad_bytes, batch, act_bytes, fwd_flops;
  double flops_per_us;             /* sustained fp32 rate */
  double op_us;                    /* host cost of one kernel launch (raw CUDA's, as the method says) */
  lab_peer_link link;
  const lab_profile *prof;
} model;

static double copy_us(const lab_profile *prof, double bytes, double gbps) {
  return bytes > 0 ? prof->copy_latency_us + bytes / (gbps * 1e3) : 0;
}

/* GPU time of SGD with momentum over every parameter: read weight,
 * gradient and momentum, write weight and momentum (4 bytes each). */
static double optimizer_us(const model *m) { return 5.0 * 4.0 * m->params / (m->prof->mem_bw_gbps * 1e3); }

/* The step on n GPUs, both ways. */
static step step_on(const model *m, int n) {
  step s;
  const lab_profile *prof = m->prof;
  double share = ceil(m->batch / n); /* GPU 0's share of the batch: the largest */
  double fwd = m->fwd_flops * share / m->flops_per_us, bwd = 2.0 * fwd;
  double launch_fwd = FWD_KERNELS * m->op_us, launch_bwd = 2.0 * launch_fwd;
  double g = m->grad_bytes, bw = m->link.busbw_gbps * 1e3;
  double peers = n - 1.0, away = peers / n; /* the share of a batch that leaves GPU 0 */

  /* DP: one process. The whole batch goes to GPU 0; each step broadcasts
   * the weights, scatters the inputs, gathers the outputs (and scatters
   * their gradients back), and reduces the gradients onto GPU 0. Its
   * replicas are launched from threads of one Python process, one launch
   * at a time. */
  double dp_comm = 0;
  if (n > 1) {
    double chunks = ceil(g / DP_CHUNK_BYTES);
    double bcast = g / bw + peers * m->link.step_us * chunks, reduce = bcast;
    double scatter = away * m->batch * SAMPLE_BYTES / bw + peers * m->link.step_us;
    double gather = away * m->batch * OUTPUT_BYTES / bw + peers * m->link.step_us;
    dp_comm = bcast + scatter + 2.0 * gather + reduce;
  }
  double dp_us = copy_us(prof, m->batch * SAMPLE_BYTES, prof->h2d_pinned_gbps) + dp_comm +
                 fmax(fwd, n * launch_fwd) + fmax(bwd, n * launch_bwd) + optimizer_us(m);

  /* DDP: one process per GPU, each loads its own share; the gradients are
   * all-reduced bucket by bucket as backward produces them (bucket k is
   * ready at k/buckets of backward), one bucket at a time. */
  double f = fmax(fwd, launch_fwd), b = fmax(bwd, launch_bwd), end = b, total = 0;
  if (n > 1) {
    double buckets = ceil(g / DDP_BUCKET_BYTES), each = lab_ring_allreduce_us(&m->link, n, g / buckets);
    end = 0;
    for (double k = 1; k <= buckets; k++) end = fmax(end, b * k / buckets) + each;
    total = buckets * each;
  }
  double ddp_us = copy_us(prof, share * SAMPLE_BYTES, prof->h2d_pinned_gbps) + f + end + optimizer_us(m);

  /* Memory of GPU 0: the context, weights, gradients and momentum, its
   * share's activations and inputs. DDP adds its buckets (a second copy of
   * the gradients); DP adds the whole batch, the gathered outputs and the
   * buffer the gradients are reduced into. */
  double base = (double)prof->context_bytes + 3.0 * g + share * (m->act_bytes + SAMPLE_BYTES);
  s.ddp_gpu0 = base + (n > 1 ? g : 0);
  s.dp_gpu0 = base + (n > 1 ? (m->batch - share) * SAMPLE_BYTES + m->batch * OUTPUT_BYTES + g : 0);
  s.dp_ms = dp_us / 1e3;
  s.ddp_ms = ddp_us / 1e3;
  s.dp_comm_ms = dp_comm / 1e3;
  s.ddp_exposed_ms = (end - b) / 1e3;
  s.ddp_allreduce_ms = total / 1e3;
  return s;
}

/* The physical GPUs the process sees, in order, under visible_choices[v]
 * on a machine of `gpus`: CUDA stops at the first index that names no GPU
 * (the CUDA programming guide, "CUDA environment variables"). */
static int visible_list(int v, int gpus, int out[MAX_GPUS]) {
  if (v == 0) {
    for (int i = 0; i < gpus; i++) out[i] = i;
    return gpus;
  }
  int n = 0;
  for (const char *c = visible_choices[v]; *c; c++) {
    if (*c == ',') continue;
    int idx = *c - '0';
    if (idx >= gpus) break;
    out[n++] = idx;
  }
  return n;
}

static void add_visible(cJSON *env, const lab_params_multi_gpu *tp, const lab_profile *prof, const int *list,
                        int n) {
  cJSON *d = cJSON_AddObjectToObject(lab_env_details(env), "visible");
  cJSON_AddStringToObject(d, "CUDA_VISIBLE_DEVICES", tp->visible ? visible_choices[tp->visible] : "");
  cJSON *arr = cJSON_AddArrayToObject(d, "devices");
  for (int i = 0; i < n; i++) {
    cJSON *o = cJSON_CreateObject();
    char name[16];
    snprintf(name, sizeof name, "cuda:%d", i);
    cJSON_AddStringToObject(o, "device", name);
    cJSON_AddNumberToObject(o, "physical", list[i]);
    cJSON_AddStringToObject(o, "name", prof->device_name);
    cJSON_AddItemToArray(arr, o);
  }
  lab_env_metric(env, "visible_count", n);
  if (tp->visible == 0)
    lab_env_finding(env, "CUDA_VISIBLE_DEVICES is unset: the process sees all %d GPUs, cuda:0 to cuda:%d, in the "
                    "machine's order.", n, n - 1);
  else if (n == 0)
    lab_env_finding(env, "CUDA_VISIBLE_DEVICES=%s names GPU %c first, and this machine has GPUs 0 to %d: CUDA stops "
                    "at the first index that is not there, so the process sees no GPU at all and "
                    "torch.cuda.is_available() is False.", visible_choices[tp->visible],
                    visible_choices[tp->visible][0], (int)tp->gpus - 1);
  else if (n == 1)
    lab_env_finding(env, "CUDA_VISIBLE_DEVICES=%s: the process sees one GPU, the machine's GPU %d, and calls it "
                    "cuda:0; torch.cuda.device_count() is 1.", visible_choices[tp->visible], list[0]);
  else
    lab_env_finding(env, "CUDA_VISIBLE_DEVICES=%s: the process sees %d GPUs and numbers them from 0: cuda:0 is the "
                    "machine's GPU %d and cuda:1 its GPU %d (nvidia-smi still shows the machine's numbers).",
                    visible_choices[tp->visible], n, list[0], list[1]);
}

/* The model on cuda:0 and the batch on batch_on: PyTorch's answer and its fix. */
static void add_cross_device(cJSON *env, const lab_params_multi_gpu *tp, int seen) {
  cJSON *d = cJSON_AddObjectToObject(lab_env_details(env), "cross_device");
  const char *error = NULL, *fix = NULL;
  if (seen == 0) {
    error = "RuntimeError: No CUDA GPUs are available";
    fix = "unset CUDA_VISIBLE_DEVICES, or list GPUs the machine has";
  } else if (tp->batch_on == 1 && seen == 1) {
    error = "RuntimeError: CUDA error: invalid device ordinal";
    fix = "the process sees one GPU: put the batch on cuda:0, or make a second GPU visible";
  } else if (tp->batch_on == 1) {
    error = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
            "and cuda:1!";
    fix = "batch = batch.to(next(model.parameters()).device)";
  }
  cJSON_AddBoolToObject(d, "ok", error == NULL);
  cJSON_AddStringToObject(d, "model", "cuda:0");
  cJSON_AddStringToObject(d, "batch", batch_on_choices[tp->batch_on]);
  if (error) {
    cJSON_AddStringToObject(d, "error", error);
    cJSON_AddStringToObject(d, "fix", fix);
    lab_env_finding(env, "The model is on cuda:0 and the batch on %s, so the step stops with \"%s\". The fix: %s.",
                    batch_on_choices[tp->batch_on], error, fix);
  } else {
    cJSON_AddNullToObject(d, "error");
    lab_env_finding(env, "The model and the batch are both on cuda:0, so the step runs; a batch left on cuda:1 "
                    "would stop it before any kernel, naming both devices.");
  }
  lab_env_metric(env, "cross_device_error", error != NULL);
}

static void add_findings(cJSON *env, const model *m, const step *s, int n, bool want_nvlink) {
  char a[24], b[24], c[24], d[24];
  const step *one = &s[0], *all = &s[n - 1];
  if (want_nvlink && !m->link.nvlink)
    lab_env_finding(env, "The %s has no NVLink: its GPUs reach each other over PCIe, at %s GB/s per GPU here.",
                    m->prof->device_name, lab_fmt_num(m->link.busbw_gbps, a, sizeof a));
  lab_env_finding(env, "On %d GPUs one step takes %s with DataParallel and %s with DDP (%s on one GPU).", n,
                  lab_fmt_ms(all->dp_ms, a, sizeof a), lab_fmt_ms(all->ddp_ms, b, sizeof b),
                  lab_fmt_ms(one->ddp_ms, c, sizeof c));
  double ar = lab_ring_allreduce_bytes(n, m->grad_bytes);
  lab_env_finding(env, "DDP's all-reduce sends 2·(%d−1)/%d of the %s of gradients, %s per GPU, over %s: %s in all, "
                  "of which %s is left after backward ends.", n, n, LAB_IEC(m->grad_bytes), LAB_IEC(ar),
                  m->link.nvlink ? "NVLink" : "PCIe", lab_fmt_ms(all->ddp_allreduce_ms, a, sizeof a),
                  lab_fmt_ms(all->ddp_exposed_ms, b, sizeof b));
  lab_env_finding(env, "DataParallel passes everything through GPU 0: its copies between GPUs take %s of the step, "
                  "and GPU 0 holds %s more than under DDP (the whole batch and the gathered outputs), %s in all.",
                  lab_fmt_ms(all->dp_comm_ms, c, sizeof c), lab_fmt_bytes_iec(all->dp_gpu0 - all->ddp_gpu0, a, sizeof a),
                  lab_fmt_bytes_iec(all->dp_gpu0, d, sizeof d));
  int best = 0;
  for (int i = 1; i < n; i++)
    if (s[i].dp_ms < s[best].dp_ms) best = i;
  if (best < n - 1)
    lab_env_finding(env, "DataParallel is fastest on %d GPU%s here: past that, each GPU it adds costs more in copies "
                    "and launches than it saves.", best + 1, best ? "s" : "");
  double cap = (double)m->prof->memory_bytes;
  if (all->ddp_gpu0 > cap)
    lab_env_finding(env, "Even on %d GPUs, GPU 0 needs %s with DDP, more than the %s of the %s: a smaller batch or "
                    "fewer activations per sample, or a GPU with more memory.", n,
                    lab_fmt_bytes_iec(all->ddp_gpu0, a, sizeof a), LAB_IEC(cap), m->prof->device_name);
  else if (one->ddp_gpu0 > cap)
    lab_env_finding(env, "On one GPU the step needs %s, more than the %s of the %s: it fits only when split.",
                    lab_fmt_bytes_iec(one->ddp_gpu0, a, sizeof a), LAB_IEC(cap), m->prof->device_name);
  if (all->dp_gpu0 > cap && all->ddp_gpu0 <= cap)
    lab_env_finding(env, "On %d GPUs DataParallel's GPU 0 needs %s, more than the %s's %s, where DDP's fits: "
                    "DataParallel runs out of memory first.", n, lab_fmt_bytes_iec(all->dp_gpu0, a, sizeof a),
                    m->prof->device_name, LAB_IEC(cap));
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_multi_gpu tp = lab_params_multi_gpu_of(p);
  int n = (int)tp.gpus;
  bool want_nvlink = tp.link == 1;
  model m = {.params = tp.params_m * 1e6, .fwd_flops = tp.fwd_gflop * 1e9, .batch = (double)tp.batch, .act_bytes = tp.act_mib * 1048576.0,
             .flops_per_us = prof->fp32_tflops * 1e6 * prof->gemm_efficiency * prof->power_cap,
             .op_us = prof->launch_us, .link = lab_peer_link_of(prof, want_nvlink), .prof = prof};
  m.grad_bytes = 4.0 * m.params;
  step s[MAX_GPUS];
  for (int i = 0; i < n; i++) s[i] = step_on(&m, i + 1);

  cJSON *env = lab_envelope_new("multi_gpu", "simulated", prof->device_name, prof->name, lab_params_to_json(p));
  if (!env) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  int list[MAX_GPUS], seen = visible_list(tp.visible, n, list);
  add_cross_device(env, &tp, seen);
  add_visible(env, &tp, prof, list, seen);

  cJSON *dp = lab_env_series(env, "dp_step", "DataParallel", "GPUs", "ms");
  cJSON *ddp = lab_env_series(env, "ddp_step", "DistributedDataParallel", "GPUs", "ms");
  cJSON *dp0 = lab_env_series(env, "dp_gpu0", "DataParallel", "GPUs", "bytes");
  cJSON *ddp0 = lab_env_series(env, "ddp_gpu0", "DistributedDataParallel", "GPUs", "bytes");
  for (int i = 0; i < n; i++) {
    lab_series_point(dp, i + 1, s[i].dp_ms);
    lab_series_point(ddp, i + 1, s[i].ddp_ms);
    lab_series_point(dp0, i + 1, s[i].dp_gpu0);
    lab_series_point(ddp0, i + 1, s[i].ddp_gpu0);
  }
  const step *all = &s[n - 1];
  lab_env_metric(env, "gpus", n);
  lab_env_metric(env, "nvlink", m.link.nvlink);
  lab_env_metric(env, "link_busbw_gbps", m.link.busbw_gbps);
  lab_env_metric(env, "link_step_us", m.link.step_us);
  lab_env_metric(env, "gradient_bytes", m.grad_bytes);
  lab_env_metric(env, "allreduce_bytes", lab_ring_allreduce_bytes(n, m.grad_bytes));
  lab_env_metric(env, "one_gpu_step_ms", s[0].ddp_ms);
  lab_env_metric(env, "dp_step_ms", all->dp_ms);
  lab_env_metric(env, "ddp_step_ms", all->ddp_ms);
  lab_env_metric(env, "dp_comm_ms", all->dp_comm_ms);
  lab_env_metric(env, "ddp_allreduce_ms", all->ddp_allreduce_ms);
  lab_env_metric(env, "ddp_exposed_ms", all->ddp_exposed_ms);
  lab_env_metric(env, "dp_speedup", s[0].dp_ms / all->dp_ms);
  lab_env_metric(env, "ddp_speedup", s[0].ddp_ms / all->ddp_ms);
  lab_env_metric(env, "dp_gpu0_bytes", all->dp_gpu0);
  lab_env_metric(env, "ddp_gpu0_bytes", all->ddp_gpu0);
  lab_env_metric(env, "gpu_memory_bytes", (double)prof->memory_bytes);
  cJSON *l = cJSON_AddObjectToObject(lab_env_details(env), "link");
  cJSON_AddStringToObject(l, "kind", m.link.nvlink ? "nvlink" : "pcie");
  cJSON_AddStringToObject(l, "source", m.link.source);
  add_findings(env, &m, s, n, want_nvlink);
  lab_env_stats(env, 1, 0, NULL, 0,
                "Modelled on the profile's figures, one step per GPU count: a sample's forward flops, twice that "
                "backward, at its sgemm efficiency; DataParallel copies the whole batch to GPU 0, then each step "
                "broadcasts the weights, scatters the inputs, gathers the outputs and reduces the gradients onto GPU "
                "0, launching every replica from one process; DDP copies each GPU's share and all-reduces the "
                "gradients in 25 MiB buckets while backward runs (a ring: 2·(N−1)/N of the gradient bytes per GPU "
                "at the link's bus bandwidth). A sample is a 224×224 colour image with 1000 outputs, the optimizer "
                "SGD with momentum.");
  *out = env;
  return 0;
}

/* CPU cost (lab_experiment_cpu_ms): at most 8 closed-form steps and their
 * buckets (at most 320 for 2000 M parameters), far under a millisecond:
 * the 1 ms floor of an envelope. */
LAB_CPU_MS(multi_gpu);

LAB_CPU_MS(multi_gpu) {
  (void)p;
  *param = "gpus";
  return 1.0;
}

const lab_experiment lab_exp_multi_gpu = {
    .name = "multi_gpu",
    .title = "Training on several GPUs",
    .summary = "A simulated machine of 2 to 8 GPUs: the error of a step split over two of them, what "
               "CUDA_VISIBLE_DEVICES renumbers, and DataParallel against DDP in step time and GPU 0's memory.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_multi_gpu_spec,
    .n_params = LAB_PARAMS_COUNT(multi_gpu),
    .simulate = LAB_SIMULATOR(simulate),
};
