/* lab_cpu_sgemm by OpenBLAS (native builds when libopenblas-dev is found;
 * see cpu_gemm.h): all the cores OpenBLAS finds, as numpy and torch use it.
 * OpenBLAS is opened with dlopen, not linked: its 60 KiB of thread-local
 * storage would be carved out of every CivetWeb thread's ~100 KiB stack if
 * it were loaded at start-up (static TLS), and the server crashed serving
 * a file; opened later, glibc gives it dynamic TLS instead. If it cannot
 * be opened, the reference loop does the work and the label says so. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cpu_gemm.h"
#include "matmul_cpu.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111 }; /* CBLAS_ORDER, CBLAS_TRANSPOSE */

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                         const float *b, int ldb, float beta, float *c, int ldc);
typedef int (*threads_fn)(void);
typedef const char *(*config_fn)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sgemm_fn sgemm;
static threads_fn threads;
static char version[32] = "OpenBLAS"; /* "OpenBLAS 0.3.21": the first two words of openblas_get_config() */

static void open_blas(void) {
  void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  *(void **)&sgemm = dlsym(lib, "cblas_sgemm");
  *(void **)&threads = dlsym(lib, "openblas_get_num_threads");
  config_fn config;
  *(void **)&config = dlsym(lib, "openblas_get_config");
  const char *c = config ? config() : NULL, *sp = c ? strchr(c, ' ') : NULL;
  if (sp && !strncmp(c, "OpenBLAS ", 9)) snprintf(version, sizeof version, "%.*s", (int)strcspn(sp + 1, " ") + 9, c);
}

void lab_cpu_sgemm(const float *a, const float *b, float *c, int n) {
  pthread_once(&once, open_blas);
  if (sgemm) sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  else lab_matmul_cpu(a, b, c, n);
}

void lab_cpu_gemm_describe(char *out, size_t n, bool plain) {
  (void)plain; /* the library's name is what a learner would install */
  pthread_once(&once, open_blas);
  int t = sgemm && threads ? threads() : 1;
  if (sgemm) snprintf(out, n, "%s cblas_sgemm, %d thread%s", version, t, t == 1 ? "" : "s");
  else snprintf(out, n, "one thread, SIMD kernel (4-wide, blocked for cache), no BLAS: OpenBLAS could not be opened");
}

bool lab_cpu_gemm_is_blas(void) {
  pthread_once(&once, open_blas);
  return sgemm != NULL;
}
