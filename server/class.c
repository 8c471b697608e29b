/* Class mode's start-up: the store, the join code and the instructor token.
 * The token is printed once by serve.c and then exists here only as a hash. */
#include "class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

#define ENV_TOKEN_MIN 16
#define ENV_TOKEN_MAX 256

static int token_from_env(const char *v, srv_class *cls, lab_error *err) {
  size_t n = strlen(v);
  if (n < ENV_TOKEN_MIN || n > ENV_TOKEN_MAX)
    return lab_fail(err, LAB_E_USAGE, "GPULAB_INSTRUCTOR_TOKEN", "GPULAB_INSTRUCTOR_TOKEN must be %d to %d characters",
                    ENV_TOKEN_MIN, ENV_TOKEN_MAX);
  for (size_t i = 0; i < n; i++)
    if (v[i] <= ' ' || v[i] == 0x7f)
      return lab_fail(err, LAB_E_USAGE, "GPULAB_INSTRUCTOR_TOKEN",
                      "GPULAB_INSTRUCTOR_TOKEN must be printable characters without spaces");
  srv_sha256(v, n, cls->instructor_hash);
  return 0;
}

int srv_class_open(srv_class *cls, const srv_class_config *cfg, char token_out[65], lab_error *err) {
  memset(cls, 0, sizeof *cls);
  cls->cfg = *cfg;
  token_out[0] = 0;
  const char *env = getenv("GPULAB_INSTRUCTOR_TOKEN");
  if (env && *env) {
    if (token_from_env(env, cls, err) != 0) return -1;
  } else {
    if (srv_token_new(token_out, err) != 0) return -1;
    srv_sha256(token_out, SRV_TOKEN_HEX, cls->instructor_hash);
  }
  if (cfg->join_code[0]) snprintf(cls->join_code, sizeof cls->join_code, "%s", cfg->join_code);
  else if (srv_join_code_new(cls->join_code, err) != 0) return -1;
  if (srv_store_open(cfg->db, &cls->store, err) != 0) {
    memset(token_out, 0, 65);
    return -1;
  }
  return 0;
}

void srv_class_close(srv_class *cls) {
  srv_store_close(cls->store);
  cls->store = NULL;
}
