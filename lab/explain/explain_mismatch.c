/* Recognises a tensor on the wrong device, in its three usual forms:
 *   "Expected all tensors to be on the same device, but found at least two
 *    devices, cuda:0 and cpu! (when checking argument for argument mat1 in
 *    method wrapper_CUDA_addmm)"   (aten; older: "Expected object of device
 *    type cuda but got device type cpu for argument #1 'self' in call to …")
 *   "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)
 *    should be the same"  (convolution)
 *   "can't convert cuda:0 device type tensor to numpy."  (Tensor.numpy)
 * and the older checkers' "Tensor for argument #2 'mat2' is on CPU, but
 * expected it to be on GPU (while checking arguments for mm)", which MPS
 * still raises. A device named mps (mps:0) is a Mac's. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

static const char *const anchors[] = {"Expected all tensors to be on the same device",
                                      "Expected object of device type ", "Input type (", "can't convert ",
                                      "Tensor for argument #", NULL};

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  for (size_t at = lab_ex_next_of(m, t, n, from, n, anchors); at != LAB_EX_NONE;
       at = lab_ex_next_of(m, t, n, at + 1, n, anchors)) {
    size_t le = lab_ex_next_line_end(m, t, n, at, n);
    /* "Input type (" and "can't convert " only with the rest of their sentence on their line */
    if ((strncmp(t + at, "Input type (", 12) == 0 && lab_ex_next(m, t, n, at, le, "weight type (") == LAB_EX_NONE) ||
        (strncmp(t + at, "can't convert ", 14) == 0 && lab_ex_next(m, t, n, at, le, "to numpy") == LAB_EX_NONE))
      continue;
    return at;
  }
  return LAB_EX_NONE;
}

/* Its line, and a log line wrapped by its logger: indented continuation
 * lines, until the sentence's ")". */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  (void)n, (void)m;
  size_t le = lab_ex_line_end(t, at, lim), seen = at; /* no ")" in t[at..seen) */
  for (int k = 0; k < 3 && le < lim && lab_ex_find(t, seen, le, ")") == LAB_EX_NONE && (t[le] == ' ' || t[le] == '\t'); k++)
    seen = le, le = lab_ex_line_end(t, le, lim);
  return le;
}

static int is_cuda_type(const char *type) { return strstr(type, ".cuda.") != NULL || strstr(type, "cuda") != NULL; }

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char a[64], b[64], arg[64], op[96];
  cJSON *f = it->facts;
  (void)n, (void)m;
  it->kind = "device_mismatch";
  it->params = cJSON_CreateObject();
  cJSON_AddBoolToObject(it->params, "model_on_gpu", 1);
  if (lab_ex_find(t, s, e, "Input type (") == s) {
    lab_ex_word_after(t, s, e, "Input type (", ")", a, sizeof a);
    lab_ex_word_after(t, s, e, "weight type (", ")", b, sizeof b);
    if (a[0]) lab_ex_fact_str(f, "input_type", a);
    if (b[0]) lab_ex_fact_str(f, "weight_type", b);
    if (a[0] && b[0]) {
      cJSON_AddItemToObject(f, "devices", cJSON_CreateStringArray((const char *const[]){is_cuda_type(a) ? "cuda" : "cpu",
                                                                                       is_cuda_type(b) ? "cuda" : "cpu"}, 2));
      cJSON_ReplaceItemInObject(it->params, "model_on_gpu", cJSON_CreateBool(is_cuda_type(b)));
      cJSON_AddBoolToObject(it->params, "move_features", is_cuda_type(a));
    }
    it->diag = "mismatch_input_weight";
    return;
  }
  if (lab_ex_find(t, s, e, "can't convert ") == s) {
    if (lab_ex_word_after(t, s, e, "can't convert ", " ", a, sizeof a) && strncmp(a, "cuda", 4) == 0)
      cJSON_AddItemToObject(f, "devices", cJSON_CreateStringArray((const char *const[]){a}, 1));
    cJSON_AddBoolToObject(f, "numpy", 1);
    it->diag = "mismatch_numpy";
    return;
  }
  /* "…two devices, cuda:0 and cpu!" or "device type cuda but got device type cpu", or (PyTorch 2.6 on)
   * "but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method …)" */
  if (lab_ex_word_after(t, s, e, "two devices, ", " ", a, sizeof a) && lab_ex_word_after(t, s, e, " and ", "!", b, sizeof b)) {
    cJSON_AddItemToObject(f, "devices", cJSON_CreateStringArray((const char *const[]){a, b}, 2));
  } else if (lab_ex_word_after(t, s, e, " is on ", ",", a, sizeof a) &&
             lab_ex_word_after(t, s, e, "other tensors on ", " ", b, sizeof b)) {
    cJSON_AddItemToObject(f, "devices", cJSON_CreateStringArray((const char *const[]){a, b}, 2));
    if (lab_ex_word_after(t, s, e, "but got ", " ", arg, sizeof arg)) lab_ex_fact_str(f, "argument", arg);
  } else if (lab_ex_find(t, s, e, "Tensor for argument #") == s && lab_ex_word_after(t, s, e, " '", "'", arg, sizeof arg)) {
    /* "Tensor for argument #2 'mat2' is on CPU, but expected it to be on GPU (while checking arguments for mm)" */
    lab_ex_fact_str(f, "argument", arg);
    if (lab_ex_word_after(t, s, e, "checking arguments for ", ") ", op, sizeof op)) lab_ex_fact_str(f, "op", op);
  } else if (lab_ex_word_after(t, s, e, "device type ", " ", a, sizeof a) &&
             lab_ex_word_after(t, s, e, "got device type ", " ", b, sizeof b)) {
    cJSON_AddItemToObject(f, "devices", cJSON_CreateStringArray((const char *const[]){a, b}, 2));
  }
  if (cJSON_GetObjectItemCaseSensitive(f, "argument") || lab_ex_word_after(t, s, e, "argument for argument ", " ", arg, sizeof arg) ||
      lab_ex_word_after(t, s, e, "for argument ", " ", arg, sizeof arg))
  {
    if (!cJSON_GetObjectItemCaseSensitive(f, "argument")) lab_ex_fact_str(f, "argument", arg);
    /* The side the argument names, set off in the placement experiment (which moves features, mask, labels, model) */
    const char *off = !strcmp(arg, "mat1") || !strcmp(arg, "input") || !strcmp(arg, "self") ? "move_features"
                      : !strcmp(arg, "mat2") || !strcmp(arg, "weight") || !strcmp(arg, "bias") ? "model_on_gpu"
                      : !strcmp(arg, "target") || !strcmp(arg, "index") ? "move_labels" : NULL;
    if (off && cJSON_GetObjectItemCaseSensitive(it->params, off)) cJSON_ReplaceItemInObject(it->params, off, cJSON_CreateBool(0));
    else if (off) cJSON_AddBoolToObject(it->params, off, 0);
  }
  if (!cJSON_GetObjectItemCaseSensitive(f, "op") &&
      (lab_ex_word_after(t, s, e, "in method ", ")", op, sizeof op) || lab_ex_word_after(t, s, e, "in call to ", " )", op, sizeof op)))
    lab_ex_fact_str(f, "op", op);
  const cJSON *dev;
  cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(f, "devices")) if (!strncmp(dev->valuestring, "mps", 3)) it->platform = LAB_EX_MAC;
  it->diag = "mismatch_batch_or_model";
}

const lab_ex_recogniser lab_ex_mismatch = {"device_mismatch", find, extent, read};
