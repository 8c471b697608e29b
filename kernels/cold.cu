/* A truly cold start, measured where it happens: in a fresh process. The
 * worker that serves runs is long-lived, and whatever ran before (any
 * experiment that used cuBLAS) has already loaded the library's kernels, so
 * a "first run" inside it measures history. kern_cold_sgemm starts this
 * executable again as `gpulab-worker --cold-sgemm N K`; that child creates
 * the CUDA context (cudaFree(0)), a cuBLAS handle, runs a first batch of K
 * N×N sgemms and a second one, each timed on the host clock after a
 * synchronize, and prints the times as one JSON line. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.cuh"

extern char **environ;

/* Runs in the child: everything from an empty process, in order. */
extern "C" int kern_cold_sgemm_main(int n, int k) {
  cudaStream_t s = NULL;
  cublasHandle_t h = NULL;
  float *a = NULL, *b = NULL, *c = NULL;
  double t0 = 0, context_ms = 0, first_ms = 0, warm_ms = 0;
  lab_error e = {LAB_OK, "", ""};
  lab_error *err = &e;
  t0 = kern_now_us();
  TRY(cudaFree(0)); /* creates the context */
  context_ms = (kern_now_us() - t0) / 1e3;
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_matrices(n, 11, s, &a, &b, &c));
  for (int pass = 0; pass < 2; pass++) {
    t0 = kern_now_us();
    if (pass == 0) { /* the handle belongs to the cold cost: loading cuBLAS starts here */
      TRY_BLAS(kern_blas_create(&h, s));
    }
    for (int i = 0; i < k; i++) TRY_BLAS(kern_sgemm_rm(h, n, a, b, c));
    TRY(cudaStreamSynchronize(s));
    (pass == 0 ? first_ms : warm_ms) = (kern_now_us() - t0) / 1e3;
  }
  printf("{\"context_ms\":%.6f,\"first_ms\":%.6f,\"warm_ms\":%.6f}\n", context_ms, first_ms, warm_ms);
cleanup:
  if (e.code != LAB_OK) printf("{\"error\":\"%s\"}\n", lab_err_code(e.code));
  fflush(stdout);
  if (h) cublasDestroy(h);
  cudaFree(a), cudaFree(b), cudaFree(c);
  if (s) cudaStreamDestroy(s);
  cudaDeviceReset();
  return e.code == LAB_OK ? 0 : 1;
}

/* Reads the child's answer line (at most 255 bytes) and waits for it. */
static int read_answer(int fd, pid_t pid, char *line, size_t cap) {
  size_t used = 0;
  for (;;) {
    ssize_t r = read(fd, line + used, cap - 1 - used);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    used += (size_t)r;
    if (used == cap - 1) break;
  }
  line[used] = 0;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int kern_cold_sgemm(int n, int k, kern_cold_times *out, lab_error *err) {
  char sn[16], sk[16], line[256];
  int fds[2];
  pid_t pid = 0;
  posix_spawn_file_actions_t fa;
  snprintf(sn, sizeof sn, "%d", n);
  snprintf(sk, sizeof sk, "%d", k);
  char *argv[] = {(char *)"gpulab-worker", (char *)"--cold-sgemm", sn, sk, NULL};
  memset(out, 0, sizeof *out);
  if (pipe(fds) != 0) return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot create a pipe for the cold-start process");
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start a fresh process for the cold run (%s)", strerror(rc));
  }
  int ok = read_answer(fds[0], pid, line, sizeof line) == 0;
  close(fds[0]);
  cJSON *j = ok ? cJSON_Parse(line) : NULL;
  const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(j, "context_ms");
  const cJSON *first = cJSON_GetObjectItemCaseSensitive(j, "first_ms");
  const cJSON *warm = cJSON_GetObjectItemCaseSensitive(j, "warm_ms");
  if (!cJSON_IsNumber(ctx) || !cJSON_IsNumber(first) || !cJSON_IsNumber(warm)) {
    cJSON_Delete(j);
    return lab_fail(err, LAB_E_CUDA_CALL, NULL, "the cold-start process gave no times (%.80s)", line);
  }
  out->context_ms = ctx->valuedouble;
  out->first_ms = first->valuedouble;
  out->warm_ms = warm->valuedouble;
  cJSON_Delete(j);
  return 0;
}
