/* Class mode's start-up: the store, and the class in it — settings, join
 * code, instructor token. The token is printed once by serve.c (by the
 * start that made it) and then exists only as a hash. */
#include "class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "token.h"

#define ENV_TOKEN_MIN 16
#define ENV_TOKEN_MAX 256

static int token_from_env(const char *v, unsigned char hash[SRV_HASH_BYTES], lab_error *err) {
  size_t n = strlen(v);
  if (n < ENV_TOKEN_MIN || n > ENV_TOKEN_MAX)
    return lab_fail(err, LAB_E_USAGE, "GPULAB_INSTRUCTOR_TOKEN", "GPULAB_INSTRUCTOR_TOKEN must be %d to %d characters",
                    ENV_TOKEN_MIN, ENV_TOKEN_MAX);
  for (size_t i = 0; i < n; i++)
    if (v[i] <= ' ' || v[i] == 0x7f)
      return lab_fail(err, LAB_E_USAGE, "GPULAB_INSTRUCTOR_TOKEN",
                      "GPULAB_INSTRUCTOR_TOKEN must be printable characters without spaces");
  srv_sha256(v, n, hash);
  return 0;
}

/* The token this start would give the class: the environment's, or a new one. */
static int token_candidate(unsigned char hash[SRV_HASH_BYTES], char token_out[65], srv_token_origin *origin,
                           lab_error *err) {
  const char *env = getenv("GPULAB_INSTRUCTOR_TOKEN");
  token_out[0] = 0;
  if (env && *env) {
    *origin = SRV_TOKEN_ENV;
    return token_from_env(env, hash, err);
  }
  *origin = SRV_TOKEN_MADE;
  if (srv_token_new(token_out, err) != 0) return -1;
  srv_sha256(token_out, SRV_TOKEN_HEX, hash);
  return 0;
}

/* The store held a class already: adopt it, or change it where `how` says. */
static int settle_existing(srv_class *cls, const srv_store_class *stored, const unsigned char hash[SRV_HASH_BYTES],
                           srv_class_start how, char token_out[65], srv_token_origin *origin, lab_error *err) {
  char where[512], msg[900];
  srv_store_where(cls->cfg.db, where, sizeof where);
  if (srv_class_config_adopt(&cls->cfg, stored->config_json, where, how.update, msg, sizeof msg) != 0)
    return lab_fail(err, LAB_E_USAGE, NULL, "%.318s", msg);
  int token_differs = !srv_equal_ct(hash, stored->instructor_hash, SRV_HASH_BYTES);
  if (*origin == SRV_TOKEN_ENV && token_differs && !how.new_token)
    return lab_fail(err, LAB_E_USAGE, "GPULAB_INSTRUCTOR_TOKEN",
                    "GPULAB_INSTRUCTOR_TOKEN is not the instructor token of the class stored in %.200s: unset it to "
                    "keep the class's token, or add --new-instructor-token to make it the class's token",
                    where);
  const unsigned char *new_hash = how.new_token ? hash : NULL;
  if (new_hash) memcpy(cls->instructor_hash, hash, SRV_HASH_BYTES);
  else memcpy(cls->instructor_hash, stored->instructor_hash, SRV_HASH_BYTES);
  if (!how.new_token && *origin == SRV_TOKEN_MADE) {
    memset(token_out, 0, 65); /* never the class's: forgotten */
    *origin = SRV_TOKEN_STORED;
  }
  if (!how.update && !new_hash) return 0;
  char *text = srv_class_config_shared_text(&cls->cfg);
  int rc = text ? srv_store_class_update(cls->store, text, new_hash, err) : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  cJSON_free(text);
  return rc;
}

int srv_class_open(srv_class *cls, const srv_class_config *cfg, srv_class_start how, char token_out[65],
                   srv_token_origin *origin, lab_error *err) {
  memset(cls, 0, sizeof *cls);
  srv_browser_sims_init(&cls->browser_sims);
  cls->cfg = *cfg;
  unsigned char hash[SRV_HASH_BYTES];
  if (token_candidate(hash, token_out, origin, err) != 0) return -1;
  if (!cls->cfg.join_code[0] && srv_join_code_new(cls->cfg.join_code, err) != 0) return -1;
  if (srv_store_open_spec(cfg->db, &cls->store, err) != 0) goto fail;
  srv_store_class *wanted = malloc(2 * sizeof *wanted), *stored = wanted + 1;
  char *text = srv_class_config_shared_text(&cls->cfg);
  int rc = -1;
  if (!wanted || !text) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  } else {
    memset(wanted, 0, sizeof *wanted);
    snprintf(wanted->config_json, sizeof wanted->config_json, "%s", text);
    memcpy(wanted->instructor_hash, hash, SRV_HASH_BYTES);
    /* Of servers starting together on an empty store, one creates the class. */
    rc = srv_store_class_create(cls->store, wanted, stored, &cls->created, err);
    if (rc == 0 && cls->created) memcpy(cls->instructor_hash, hash, SRV_HASH_BYTES);
    else if (rc == 0) rc = settle_existing(cls, stored, hash, how, token_out, origin, err);
  }
  free(wanted);
  cJSON_free(text);
  if (rc != 0) goto fail;
  snprintf(cls->join_code, sizeof cls->join_code, "%s", cls->cfg.join_code);
  return 0;
fail:
  memset(token_out, 0, 65);
  srv_store_close(cls->store);
  cls->store = NULL;
  srv_browser_sims_free(&cls->browser_sims);
  return -1;
}

void srv_class_close(srv_class *cls) {
  srv_store_close(cls->store);
  cls->store = NULL;
  srv_browser_sims_free(&cls->browser_sims);
}

int srv_class_read(srv_store *st, srv_class_config *cfg, int *exists, lab_error *err) {
  srv_store_class *c = malloc(sizeof *c);
  if (!c) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  char msg[300];
  srv_class_config_defaults(cfg);
  int rc = srv_store_class_get(st, c, exists, err);
  if (rc == 0 && *exists && srv_class_config_parse("(the class in the store)", c->config_json, strlen(c->config_json),
                                                   cfg, msg, sizeof msg) != 0)
    rc = lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL, "%.300s", msg);
  free(c);
  return rc;
}
