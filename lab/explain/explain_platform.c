/* What a paste shows of the learner's machine, in one pass over it: the
 * words a Mac, an AMD card under ROCm or an NVIDIA GPU leave in a paste
 * (a MacBook, /Users/, MPS; HIP, ROCm, gfx targets, rocBLAS, MIOpen;
 * NVIDIA, GeForce, Tesla, nvidia-smi), Colab or Kaggle, the first gfx
 * target and the first "+cuNNN" wheel tag. Each byte is looked at once,
 * and again only where it starts one of the words (the words' first
 * letters are few), so the pass is linear in the paste. */
#include "explain_platform.h"

#include <string.h>

#include "explain_scan.h"

enum { START = 1, END = 2, GPU = 4, AMD = 8 }; /* a word boundary before / after it; it names an NVIDIA / AMD GPU */

static const struct {
  const char *w;
  unsigned char platform, flags;
} words[] = {
    /* a Mac */
    {"MacBook", LAB_EX_MAC, START},       {"Macbook", LAB_EX_MAC, START},   {"macbook", LAB_EX_MAC, START},
    {"MacOS", LAB_EX_MAC, START},         {"macOS", LAB_EX_MAC, START},     {"macos", LAB_EX_MAC, START},
    {"Mac", LAB_EX_MAC, START | END},     {"mac", LAB_EX_MAC, START | END}, {"/Users/", LAB_EX_MAC, 0},
    {"Apple Silicon", LAB_EX_MAC, START}, {"Apple silicon", LAB_EX_MAC, START}, {"Apple M", LAB_EX_MAC, START},
    {"M1", LAB_EX_MAC, START | END},      {"M2", LAB_EX_MAC, START | END},  {"M3", LAB_EX_MAC, START | END},
    {"M4", LAB_EX_MAC, START | END},      {"darwin", LAB_EX_MAC, START},    {"mps:0", LAB_EX_MAC, START},
    {"'mps'", LAB_EX_MAC, 0},             {"\"mps\"", LAB_EX_MAC, 0},       {"MPS backend", LAB_EX_MAC, START},
    {"MPS device", LAB_EX_MAC, START},    {"MPS Tensor", LAB_EX_MAC, START}, {"(arm64)", LAB_EX_MAC, 0},
    /* an AMD card under ROCm */
    {"ROCm", LAB_EX_ROCM, START},         {"ROCM", LAB_EX_ROCM, START},     {"rocm", LAB_EX_ROCM, START},
    {"HIP", LAB_EX_ROCM, START | END},    {"hipErr", LAB_EX_ROCM, START},   {"Radeon", LAB_EX_ROCM, START | AMD},
    {"radeon", LAB_EX_ROCM, START | AMD},       {"amdgpu", LAB_EX_ROCM, START},   {"MIOpen", LAB_EX_ROCM, START},
    {"rocBLAS", LAB_EX_ROCM, 0},          {"rocblas", LAB_EX_ROCM, 0},      {"/dev/kfd", LAB_EX_ROCM, 0},
    {"Instinct", LAB_EX_ROCM, START | AMD}, {"MI250", LAB_EX_ROCM, START | AMD}, {"MI300", LAB_EX_ROCM, START | AMD},
    /* an NVIDIA GPU (the commonest words: weakest) */
    {"NVIDIA", LAB_EX_CUDA, START | GPU}, {"Nvidia", LAB_EX_CUDA, START | GPU}, {"nvidia-smi", LAB_EX_CUDA, START},
    {"GeForce", LAB_EX_CUDA, START | GPU}, {"Tesla ", LAB_EX_CUDA, START | GPU}, {"Quadro", LAB_EX_CUDA, START | GPU},
    {"RTX", LAB_EX_CUDA, START | GPU},    {"GTX", LAB_EX_CUDA, START | GPU}, {"A100", LAB_EX_CUDA, START | END | GPU},
    {"H100", LAB_EX_CUDA, START | END | GPU}, {"V100", LAB_EX_CUDA, START | GPU}, {"T4", LAB_EX_CUDA, START | END | GPU},
    {"Colab", LAB_EX_CUDA, START},        {"colab", LAB_EX_CUDA, START},    {"Kaggle", LAB_EX_CUDA, START},
    {"kaggle", LAB_EX_CUDA, START},       {"CUDA Version", LAB_EX_CUDA, START},
    /* no machine: what the code shows */
    {"from_numpy", LAB_EX_NO_PLATFORM, 0}, {"PYTORCH_ENABLE_MPS_FALLBACK", LAB_EX_NO_PLATFORM, 0},
};
#define NWORDS (sizeof words / sizeof words[0])
_Static_assert(NWORDS < 255, "word indexes fit a byte");

static int alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int digit(char c) { return c >= '0' && c <= '9'; }
static int hexish(char c) { return digit(c) || (c >= 'a' && c <= 'f'); }

/* "gfx1010:xnack-" at t[i]: the target and its features (":xnack-", ":sramecc+"); its length, 0 when none. */
static size_t gfx_at(const char *t, size_t n, size_t i) {
  size_t p = i + 3;
  if (p >= n || !digit(t[p])) return 0;
  while (p < n && p - i < 10 && hexish(t[p])) p++;
  while (p + 1 < n && t[p] == ':' && p - i < 30) { /* a feature: letters then + or - */
    size_t q = p + 1;
    while (q < n && q - p < 12 && t[q] >= 'a' && t[q] <= 'z') q++;
    if (q == p + 1 || q >= n || (t[q] != '+' && t[q] != '-')) break;
    p = q + 1;
  }
  lab_ex_count(p - i);
  return p - i;
}

static const char fallback[] = "PYTORCH_ENABLE_MPS_FALLBACK";

/* The fallback's name at t[i] set to 1 ("=1", "': '1'", "\"] = \"1\""), not the MPS message's own
 * "set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`". */
static int fallback_set_at(const char *t, size_t n, size_t i) {
  static const char hint[] = "variable `";
  size_t h = sizeof hint - 1, p = i + sizeof fallback - 1, k = 0;
  if (i >= h && !memcmp(t + i - h, hint, h)) return 0;
  while (p < n && k < 8 && strchr("'\"]: =", t[p])) p++, k++;
  lab_ex_count(k + 1 + (i >= h ? h : 0));
  return p < n && t[p] == '1' && (p + 1 == n || !alnum(t[p + 1]));
}

/* "+cu121" at t[i]: "12.1" into out; 1 when read. */
static int wheel_at(const char *t, size_t n, size_t i, char *out) {
  size_t p = i + 3, d = 0;
  while (p + d < n && d < 4 && digit(t[p + d])) d++;
  lab_ex_count(d + 3);
  if (d < 2 || d > 3 || (p + d < n && alnum(t[p + d]))) return 0;
  size_t major = d - 1;
  memcpy(out, t + p, major);
  out[major] = '.';
  out[major + 1] = t[p + major];
  out[major + 2] = '\0';
  return 1;
}

void lab_ex_paste_read(const char *t, size_t n, lab_ex_paste *p) {
  /* the words by their first byte: head[c] is the first word starting with c, chain[k] the next after word k
   * (0: none; indexes are one more than the word's) */
  unsigned char head[256] = {0}, chain[NWORDS + 1] = {0};
  int seen[4] = {0};
  memset(p, 0, sizeof *p);
  for (size_t k = NWORDS; k-- > 0;) {
    unsigned char c = (unsigned char)words[k].w[0];
    chain[k + 1] = head[c], head[c] = (unsigned char)(k + 1);
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (!head[c] && c != 'g' && c != '+') continue;
    if (t[i] == 'g' && !p->gfx[0] && i + 3 < n && !memcmp(t + i, "gfx", 3) && (i == 0 || !alnum(t[i - 1]))) {
      size_t len = gfx_at(t, n, i);
      if (len && len < sizeof p->gfx) memcpy(p->gfx, t + i, len), p->gfx[len] = '\0', seen[LAB_EX_ROCM] = p->amd_gpu = 1;
    }
    if (t[i] == '+' && !p->wheel_cuda[0] && i + 3 < n && t[i + 1] == 'c' && t[i + 2] == 'u' && wheel_at(t, n, i, p->wheel_cuda))
      seen[LAB_EX_CUDA] = 1;
    for (size_t k1 = head[c]; k1; k1 = chain[k1]) {
      size_t k = k1 - 1;
      const char *w = words[k].w;
      size_t j = 1;
      while (w[j] && i + j < n && t[i + j] == w[j]) j++;
      lab_ex_count(j);
      if (w[j]) continue;
      if ((words[k].flags & START) && i > 0 && alnum(t[i - 1])) continue;
      if ((words[k].flags & END) && i + j < n && alnum(t[i + j])) continue;
      seen[words[k].platform] = 1;
      if (words[k].flags & GPU) p->nvidia_gpu = 1;
      if (words[k].flags & AMD) p->amd_gpu = 1;
      if (!strcmp(w, "from_numpy")) p->from_numpy = 1;
      if (!strcmp(w, fallback)) p->fallback_set |= fallback_set_at(t, n, i);
      if (!p->host && (w[0] == 'C' || w[0] == 'c') && w[1] == 'o') p->host = "colab";
      if (!p->host && (w[0] == 'K' || w[0] == 'k') && w[1] == 'a') p->host = "kaggle";
    }
  }
  lab_ex_count(n);
  p->platform = seen[LAB_EX_MAC] ? LAB_EX_MAC : seen[LAB_EX_ROCM] ? LAB_EX_ROCM : seen[LAB_EX_CUDA] ? LAB_EX_CUDA
                                                                                                  : LAB_EX_NO_PLATFORM;
}

static const char *const names[] = {NULL, "cuda", "rocm", "mac"};

const char *lab_ex_platform_name(int platform) {
  return platform > LAB_EX_NO_PLATFORM && platform <= LAB_EX_MAC ? names[platform] : NULL;
}

int lab_ex_platform_of(const char *name) {
  for (int k = LAB_EX_CUDA; name && k <= LAB_EX_MAC; k++)
    if (!strcmp(names[k], name)) return k;
  return LAB_EX_NO_PLATFORM;
}
