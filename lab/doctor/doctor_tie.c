/* `gpulab doctor`: ties each GPU op to the host call that launched it, so a
 * gap can be put on the call that launched the op after it and launch
 * latency (launch to start) measured. Kineto writes CUPTI's correlation id
 * in args.correlation on both ends, and an ac2g flow (ph s at the runtime
 * call, f at the GPU op, id = the correlation); traces without the args are
 * tied through the flows, matched to the records by their ts. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

#define TS_EPS 0.0005 /* Kineto writes ts to the nanosecond: ends closer than this are one event */

static int by_flow(const void *x, const void *y) {
  const dr_flow *a = x, *b = y;
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  return (int)b->start - (int)a->start; /* s before f */
}

/* First index whose ts >= t, in n records of `size` bytes sorted by their
 * leading `double ts` (dr_gpu and dr_host both start with it). */
long lab_dr_lower_ts(const void *base, size_t size, long n, double t) {
  long lo = 0, hi = n;
  while (lo < hi) {
    long m = (lo + hi) / 2;
    double ts;
    memcpy(&ts, (const char *)base + (size_t)m * size, sizeof ts);
    if (ts < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}
_Static_assert(offsetof(dr_gpu, ts) == 0 && offsetof(dr_host, ts) == 0, "lab_dr_lower_ts reads ts first");

/* The first record at or after i that may still take a key (nx[j] == j),
 * or n: nx[j] points further for a record that may not, and is shortened
 * on the way (path halving), so finding costs near O(1) however many
 * records share one ts. */
static int32_t next_free(int32_t *nx, int32_t i, int32_t n) {
  while (i < n && nx[i] != i) {
    int32_t j = nx[i];
    if (j < n) nx[i] = nx[j];
    i = j;
  }
  return i;
}

/* The record at ts that may still take a key, or -1; records sorted by ts. */
static long free_at(const void *base, size_t size, long n, int32_t *nx, double ts) {
  long lo = lab_dr_lower_ts(base, size, n, ts - TS_EPS);
  int32_t j = next_free(nx, (int32_t)lo, (int32_t)n);
  double t;
  if (j >= n) return -1;
  memcpy(&t, (const char *)base + (size_t)j * size, sizeof t);
  return t <= ts + TS_EPS ? j : -1;
}

/* Flow ids become keys of the records at their two ends that have none;
 * returns how many GPU ops got one. Flow ids use the correlation's space, as
 * Kineto writes them (id = correlation). A record that may take a key: a
 * runtime call or blocking copy without one, a GPU op without one. */
static long keys_from_flows(lab_doctor *d) {
  long n = 0;
  if (!d->nflows) return 0;
  qsort(d->flows, (size_t)d->nflows, sizeof *d->flows, by_flow);
  int32_t *hn = malloc(((size_t)d->nhost + 1) * sizeof *hn), *gn = malloc(((size_t)d->ngpu + 1) * sizeof *gn);
  if (!hn || !gn) { /* no ties by flows: gaps fall back to the other keys or to time overlap */
    free(hn);
    free(gn);
    return 0;
  }
  for (long i = 0; i < d->nhost; i++)
    hn[i] = (int32_t)((d->host[i].kind == DH_RUNTIME || d->host[i].kind == DH_COPY) && !d->host[i].corr ? i : i + 1);
  for (long i = 0; i < d->ngpu; i++) gn[i] = (int32_t)(!d->gpu[i].corr ? i : i + 1);
  for (long i = 0; i + 1 < d->nflows; i++) {
    const dr_flow *s = &d->flows[i], *f = &d->flows[i + 1];
    if (!s->start || f->start || s->id != f->id || !(s->id >= 1 && s->id < 9e15)) continue;
    long h = free_at(d->host, sizeof *d->host, d->nhost, hn, s->ts), g = free_at(d->gpu, sizeof *d->gpu, d->ngpu, gn, f->ts);
    if (h < 0 || g < 0) continue;
    d->host[h].corr = d->gpu[g].corr = (int64_t)s->id;
    hn[h] = (int32_t)h + 1;
    gn[g] = (int32_t)g + 1;
    d->gpu[g].tied = DT_FLOWS;
    n++;
    i++;
  }
  free(hn);
  free(gn);
  return n;
}

typedef struct keyed_call {
  int64_t corr;
  int32_t host;
} keyed_call;

static int by_key(const void *x, const void *y) {
  int64_t a = ((const keyed_call *)x)->corr, b = ((const keyed_call *)y)->corr;
  return (a > b) - (a < b);
}

static void hist_add(uint32_t *h, double us) {
  double b = us * 10.0;
  h[b <= 0 ? 0 : b >= DR_HIST_BINS - 1 ? DR_HIST_BINS - 1 : (long)b]++;
}

void lab_dr_tie(lab_doctor *d) {
  long by_flows = keys_from_flows(d), keyed = 0;
  for (long i = 0; i < d->nhost; i++) keyed += d->host[i].corr != 0;
  if (!keyed) return;
  keyed_call *idx = malloc((size_t)keyed * sizeof *idx);
  if (!idx) return; /* no ties: gaps fall back to time overlap */
  long k = 0;
  for (long i = 0; i < d->nhost; i++)
    if (d->host[i].corr) idx[k++] = (keyed_call){d->host[i].corr, (int32_t)i};
  qsort(idx, (size_t)keyed, sizeof *idx, by_key);
  long by_corr = 0, by_ext = 0;
  for (long i = 0; i < d->ngpu; i++) {
    dr_gpu *g = &d->gpu[i];
    if (!g->corr) continue;
    long lo = 0, hi = keyed;
    while (lo < hi) {
      long m = (lo + hi) / 2;
      if (idx[m].corr < g->corr) lo = m + 1;
      else hi = m;
    }
    if (lo == keyed || idx[lo].corr != g->corr) continue;
    g->launch = idx[lo].host;
    if (g->tied != DT_FLOWS) {
      g->tied = g->corr < 0 ? DT_EXTERNAL : DT_CORRELATION; /* -External id: the same operator, not the same call */
      *(g->corr < 0 ? &by_ext : &by_corr) += 1;
    }
    d->tied_ops++;
    hist_add(d->queue_hist, g->ts - d->host[g->launch].ts);
  }
  d->tied_by = !d->tied_ops                              ? DT_NONE
               : by_corr >= by_flows && by_corr >= by_ext ? DT_CORRELATION
               : by_flows >= by_ext                      ? DT_FLOWS
                                                         : DT_EXTERNAL;
  free(idx);
}
