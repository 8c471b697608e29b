/* Plain labels for the numbers of the doctor's findings: each finding gets
 * "labels": {"gpu_busy_pct": "GPU busy (% of the step)", …} beside its
 * "facts", so the page shows the label and a script keeps the stable key. */
#include <string.h>

#include "doctor_int.h"

static const struct {
  const char *key, *label;
} labels[] = {
    {"call", "Host call that waited"},
    {"call_ms", "That call's time (ms)"},
    {"collective", "A collective (NCCL) kernel"},
    {"communication_pct", "Communication (% of GPU time)"},
    {"copy_pct", "Copies (% of GPU time)"},
    {"device", "GPU"},
    {"elementwise_pct", "Elementwise kernels (% of GPU time)"},
    {"gap_start_ms", "Largest gap began at (ms from the trace's start)"},
    {"gpu_busy_pct", "GPU busy (% of the step)"},
    {"gpu_ms", "GPU time (ms)"},
    {"host_ms", "Host time (ms)"},
    {"host_op", "Host operator it was in (outermost)"},
    {"host_op_category", "Its kind (profiler category)"},
    {"host_op_gap_pct", "Share of the gap it covers (%)"},
    {"host_op_inner", "Innermost call inside it"},
    {"host_op_ms", "Time the host spent in it (ms)"},
    {"host_op_step_pct", "Share of the step it took (%)"},
    {"host_region", "Annotated region around it"},
    {"idle_pct", "GPU idle (% of the step)"},
    {"kernels", "Kernels"},
    {"largest_gap_ms", "Largest gap (ms)"},
    {"launch_cost_us", "Cost of one launch (µs)"},
    {"launch_to_start_median_us", "Launch to start, median (µs)"},
    {"launched_after_gap_start_ms", "Next kernel launched, after the gap began (ms)"},
    {"matmul_pct", "Matrix multiplies (% of GPU time)"},
    {"median_kernel_us", "Median kernel (µs)"},
    {"memory_bytes", "GPU memory"},
    {"memset_pct", "Memory fills (% of GPU time)"},
    {"pageable_bytes", "Copied from pageable memory"},
    {"pageable_copies", "Copies from pageable memory"},
    {"pageable_gbps", "Pageable copy speed (GB/s)"},
    {"peak_allocated_bytes", "Peak memory in tensors"},
    {"peak_reserved_bytes", "Peak memory the cache held"},
    {"pinned_bytes", "Copied from pinned memory"},
    {"pinned_copies", "Copies from pinned memory"},
    {"pinned_gbps", "Pinned copy speed (GB/s)"},
    {"profiler_range_ops", "Operations in profiler ranges"},
    {"reduce_pct", "Reductions (% of GPU time)"},
    {"short_kernels", "Kernels shorter than a launch"},
    {"source", "Read from"},
    {"step", "Step"},
    {"tensor_core_matmul_pct", "Matrix multiplies on tensor cores (%)"},
    {"waited_on", "Kernel it waited for"},
    {"wall_ms", "Step time (ms)"},
};

static const char *label_of(const char *key) {
  for (size_t i = 0; key && i < sizeof labels / sizeof labels[0]; i++)
    if (!strcmp(labels[i].key, key)) return labels[i].label;
  return NULL;
}

void lab_dr_label_facts(cJSON *findings) {
  cJSON *f, *x;
  cJSON_ArrayForEach(f, findings) {
    cJSON *out = cJSON_CreateObject();
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "facts")) {
      const char *l = label_of(x->string);
      if (l) cJSON_AddStringToObject(out, x->string, l);
    }
    if (!cJSON_AddItemToObject(f, "labels", out)) cJSON_Delete(out);
  }
}
