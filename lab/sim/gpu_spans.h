/* Where each operation on one CUDA stream ran, from what a host clock and
 * one completion event per operation can tell. Shared by the timelines of
 * timing and profile, so the same rule draws both. */
#ifndef LAB_GPU_SPANS_H
#define LAB_GPU_SPANS_H

/* Op i was issued by the host at issue_us[i] (negative: not issued; its
 * start is set to its end) and its completion event fired at end_us[i],
 * both on the host's clock. A stream runs its ops in order, so op i started
 * at the later of its issue and the previous op's end (ready_us for the
 * first: when the stream had nothing left before it), and never after its
 * own end. The gaps this leaves are real idle time of the GPU: drawing an
 * op from the previous op's end instead would show a launch-bound GPU busy. */
void lab_gpu_span_starts(const double *issue_us, const double *end_us, int n, double ready_us, double *start_us);

#endif
