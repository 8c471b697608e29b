/* Kineto's names for our timelines' spans (see trace_kineto.h). The
 * categories and fields are those libkineto/src/output_json.cpp writes
 * (ph, cat, name, args.device, args.stream, args.correlation, args["External
 * id"], the ac2g flows, deviceProperties) and PyTorch's "[memory]" instant
 * events (args "Total Allocated", "Total Reserved", "Bytes", "Device Type",
 * "Device Id"); docs/trace.md cites them. */
#include "trace_kineto.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profiles.h"

#define MIB 1048576.0

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}
static double num_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}
static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

int lab_tk_is_gpu(const char *cat) {
  return !strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") || !strcmp(cat, "gpu_memset");
}

/* Whether env's copies come from pinned memory: streams' memory, profile's
 * pinned; transfer's timeline copies are pinned (lab/experiments/transfer.c). */
static int pinned(const cJSON *env) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(env, "params");
  const char *mem = str_of(p, "memory"), *exp = str_of(env, "experiment");
  if (mem) return !strcmp(mem, "pinned");
  if (cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(p, "pinned"))) return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "pinned"));
  return exp && !strcmp(exp, "transfer");
}

/* A copy's bytes where the experiment's parameters say them. */
static double copy_bytes(const cJSON *env, const char *label) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(env, "params");
  const char *exp = str_of(env, "experiment");
  if (!exp) return 0;
  if (!strcmp(exp, "streams")) return num_of(p, "chunk_mib") * MIB;
  if (!strcmp(exp, "transfer")) {
    int n = 0;
    /* "1000 copies of 4 KiB" or "1 copy of 3.9 MiB": one span, all of them */
    if (sscanf(label, "%d cop", &n) == 1) return num_of(p, "small_copies") * num_of(p, "small_bytes");
  }
  if (!strcmp(exp, "train_step") && starts(label, "loss to host")) return 4; /* one float */
  if (!strcmp(exp, "profile")) {
    /* the model's float32 inputs and int32 labels (lab/experiments/profile_sim.c), the loss a float */
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "model");
    double batch = num_of(m, "batch");
    if (strstr(label, "inputs")) return batch * num_of(m, "features") * 4;
    if (strstr(label, "labels")) return batch * 4;
    if (strstr(label, "loss")) return 4;
  }
  return 0;
}

static void host_kind(const char *label, lab_tk_kind *k) {
  const char *name = label;
  k->cat = "cuda_runtime";
  if (starts(label, "launch ")) name = "cudaLaunchKernel";
  else if (starts(label, "cudaGraphLaunch")) name = "cudaGraphLaunch";
  else if (strstr(label, ".item()")) {
    /* what .item() records: the op that reads the value (it holds the copy and the wait) */
    k->cat = "cpu_op";
    name = "aten::_local_scalar_dense";
  } else if (strstr(label, "to host") || strstr(label, "copy")) name = "cudaMemcpyAsync";
  else if (strstr(label, "synchronize") || strstr(label, "Synchronize"))
    name = strstr(label, "stream") ? "cudaStreamSynchronize" : "cudaDeviceSynchronize";
  else k->cat = "user_annotation"; /* a phase (forward, backward ...): an NVTX / record_function range */
  snprintf(k->name, sizeof k->name, "%s", name);
}

void lab_tk_kind_of(const cJSON *env, const char *lane, const char *label, lab_tk_kind *k) {
  memset(k, 0, sizeof *k);
  k->device = k->stream = -1;
  if (!strcmp(lane, "cpu") || starts(lane, "cpu/")) {
    host_kind(label, k);
    return;
  }
  int dev = 0, stream = 0;
  if (sscanf(lane, "gpu:%d/stream%d", &dev, &stream) != 2) {
    /* a copy engine's view of the same spans, or another run of the experiment (race:, baseline:):
     * kept in the trace, but not as GPU ops, so the run is counted once */
    k->cat = starts(lane, "gpu:") ? "gpulab_engine" : "gpulab_other_run";
    snprintf(k->name, sizeof k->name, "%s", label);
    return;
  }
  k->device = dev;
  k->stream = stream;
  int pin = pinned(env);
  if (starts(label, "H2D") || strstr(label, "copies of") || strstr(label, "copy of")) {
    k->cat = "gpu_memcpy";
    snprintf(k->name, sizeof k->name, "Memcpy HtoD (%s -> Device)", pin ? "Pinned" : "Pageable");
    k->bytes = copy_bytes(env, label);
  } else if (starts(label, "D2H") || starts(label, "loss to host")) {
    k->cat = "gpu_memcpy";
    snprintf(k->name, sizeof k->name, "Memcpy DtoH (Device -> %s)", pin ? "Pinned" : "Pageable");
    k->bytes = copy_bytes(env, label);
  } else if (strstr(label, "memset")) {
    k->cat = "gpu_memset";
    snprintf(k->name, sizeof k->name, "Memset (Device)");
  } else {
    k->cat = "kernel";
    snprintf(k->name, sizeof k->name, "%s", label);
  }
}

const char *lab_tk_step_opener(const cJSON *env, long *first) {
  const char *exp = str_of(env, "experiment");
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(env, "params");
  if (!exp) return NULL;
  if (!strcmp(exp, "profile")) {
    /* the timeline is the run's last step (lab/experiments/profile.c) */
    double steps = num_of(p, "steps");
    *first = steps >= 1 && steps < 1e9 ? (long)steps - 1 : 0;
    return "data load";
  }
  if (!strcmp(exp, "train_step")) {
    *first = 0; /* the first steps of the run (lab/experiments/train_step.c) */
    return "launch sgemm forward";
  }
  return NULL;
}

void lab_tk_device_properties(cJSON *trace, const cJSON *env) {
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(env, "device");
  const char *pn = str_of(dev, "profile");
  const lab_profile *pr = pn ? lab_profile_find(pn) : NULL;
  if (!pr) return;
  cJSON *a = cJSON_AddArrayToObject(trace, "deviceProperties");
  cJSON *d = cJSON_CreateObject();
  if (!a || !d) {
    cJSON_Delete(d);
    return;
  }
  cJSON_AddItemToArray(a, d);
  cJSON_AddNumberToObject(d, "id", 0);
  cJSON_AddStringToObject(d, "name", pr->device_name);
  cJSON_AddNumberToObject(d, "totalGlobalMem", (double)pr->memory_bytes);
  cJSON_AddNumberToObject(d, "computeMajor", pr->cc_major);
  cJSON_AddNumberToObject(d, "computeMinor", pr->cc_minor);
  cJSON_AddNumberToObject(d, "numSms", pr->sm_count);
}

static const cJSON *points(const cJSON *env, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const char *sid = str_of(s, "id");
    if (sid && !strcmp(sid, id)) return cJSON_GetObjectItemCaseSensitive(s, "points");
  }
  return NULL;
}

void lab_tk_memory_events(cJSON *events, const cJSON *env, int pid, int tid) {
  const cJSON *al = points(env, "allocated"), *re = points(env, "reserved");
  if (!al || !re) return;
  const cJSON *a = al->child, *r = re->child;
  double before = 0;
  int n = 0;
  for (; a && r; a = a->next, r = r->next) {
    if (cJSON_GetArraySize(a) != 2 || cJSON_GetArraySize(r) != 2) continue;
    double va = a->child->next->valuedouble * MIB, vr = r->child->next->valuedouble * MIB;
    if (!isfinite(va) || !isfinite(vr) || va < 0 || vr < 0) continue;
    cJSON *e = cJSON_CreateObject();
    if (!e) return;
    cJSON_AddItemToArray(events, e);
    cJSON_AddStringToObject(e, "name", "[memory]");
    cJSON_AddStringToObject(e, "ph", "i");
    cJSON_AddStringToObject(e, "cat", "cpu_instant_event");
    cJSON_AddStringToObject(e, "s", "t");
    cJSON_AddNumberToObject(e, "pid", pid);
    cJSON_AddNumberToObject(e, "tid", tid);
    cJSON_AddNumberToObject(e, "ts", n++);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddNumberToObject(args, "Device Type", 1); /* c10::DeviceType::CUDA */
    cJSON_AddNumberToObject(args, "Device Id", 0);
    cJSON_AddNumberToObject(args, "Bytes", round(va - before));
    cJSON_AddNumberToObject(args, "Total Allocated", round(va));
    cJSON_AddNumberToObject(args, "Total Reserved", round(vr));
    before = va;
  }
}
