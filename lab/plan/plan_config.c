/* A pasted Hugging Face config.json read into a model: model_type gpt2,
 * llama (and mistral, the same layers) or bert, with the field names each
 * configuration class uses (configuration_gpt2.py, configuration_llama.py,
 * configuration_bert.py) and their defaults. A model the planner does not
 * describe is refused naming the field that says so: experts (mixture of
 * experts), a vision, audio or text sub-config (multimodal), or another
 * model_type. Every number is checked for type and bounds. */
#include "plan_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"

/* Fields whose presence means a model the planner would plan as something
 * it is not. */
static const char *const moe_fields[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_intermediate_size",
                                         "num_experts_per_tok", "router_aux_loss_coef", NULL};
static const char *const multimodal_fields[] = {"vision_config", "text_config", "audio_config", "image_token_index",
                                                "image_token_id", "vision_feature_layer", "mm_projector_type", NULL};

static bool present(const cJSON *v) { return v && !cJSON_IsNull(v) && !(cJSON_IsBool(v) && !cJSON_IsTrue(v)); }

/* An integer field: absent (or null) leaves *out as it is unless required. */
static int int_field(const cJSON *cfg, const char *key, long lo, long hi, bool required, int *out, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
  char param[48];
  snprintf(param, sizeof param, "config.%s", key);
  if (!v || cJSON_IsNull(v)) {
    if (required) return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json has no %s, which this model needs", key);
    return 0;
  }
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
    return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json's %s must be a whole number", key);
  if (v->valuedouble < (double)lo || v->valuedouble > (double)hi)
    return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json's %s must be between %ld and %ld (it is %.0f)",
                    key, lo, hi, v->valuedouble);
  *out = (int)v->valuedouble;
  return 0;
}

static int prob_field(const cJSON *cfg, const char *key, double *out, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
  if (!v || cJSON_IsNull(v)) return 0;
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 1)) {
    char param[48];
    snprintf(param, sizeof param, "config.%s", key);
    return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json's %s must be a probability in [0, 1)", key);
  }
  *out = v->valuedouble;
  return 0;
}

static int bool_field(const cJSON *cfg, const char *key, bool *out, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
  if (!v || cJSON_IsNull(v)) return 0;
  if (!cJSON_IsBool(v)) {
    char param[48];
    snprintf(param, sizeof param, "config.%s", key);
    return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json's %s must be true or false", key);
  }
  *out = cJSON_IsTrue(v);
  return 0;
}

static int activation(const cJSON *cfg, const char *key, int *mlp, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
  if (!v || cJSON_IsNull(v)) return 0;
  const char *s = cJSON_GetStringValue(v);
  char param[48];
  snprintf(param, sizeof param, "config.%s", key);
  if (!s) return lab_fail(err, LAB_E_INVALID_PARAM, param, "config.json's %s must be a string", key);
  if (strcmp(s, "gelu_new") == 0 || strcmp(s, "gelu_fast") == 0) *mlp = LAB_PLAN_MLP_GELU_TANH;
  else if (strcmp(s, "gelu") == 0 || strcmp(s, "gelu_pytorch_tanh") == 0) *mlp = LAB_PLAN_MLP_GELU;
  else if (strcmp(s, "silu") == 0 && *mlp == LAB_PLAN_MLP_SWIGLU) *mlp = LAB_PLAN_MLP_SWIGLU;
  else
    return lab_fail(err, LAB_E_PLAN_UNSUPPORTED, param,
                    "config.json's %s is \"%.40s\": the planner knows gelu, gelu_new and (with Llama's gated MLP) silu",
                    key, s);
  return 0;
}

static int read_gpt2(const cJSON *cfg, lab_plan_model *m, lab_error *err) {
  m->arch = LAB_PLAN_GPT2;
  m->mlp = LAB_PLAN_MLP_GELU_TANH;
  m->tied = true;
  m->dropout = 0.1;
  m->max_positions = 1024;
  m->vocab = 50257;
  int inner = 0;
  if (int_field(cfg, "n_layer", 1, 256, true, &m->layers, err) || int_field(cfg, "n_embd", 8, 32768, true, &m->hidden, err) ||
      int_field(cfg, "n_head", 1, 256, true, &m->heads, err) || int_field(cfg, "n_inner", 1, 262144, false, &inner, err) ||
      int_field(cfg, "vocab_size", 2, 1000000, false, &m->vocab, err) ||
      int_field(cfg, "n_positions", 1, 131072, false, &m->max_positions, err) ||
      prob_field(cfg, "resid_pdrop", &m->dropout, err) || activation(cfg, "activation_function", &m->mlp, err) ||
      bool_field(cfg, "tie_word_embeddings", &m->tied, err))
    return -1;
  m->kv_heads = m->heads;
  m->ffn = inner ? inner : 4 * m->hidden;
  return 0;
}

static int read_llama(const cJSON *cfg, lab_plan_model *m, lab_error *err) {
  m->arch = LAB_PLAN_LLAMA;
  m->mlp = LAB_PLAN_MLP_SWIGLU;
  m->tied = false;
  m->dropout = 0;
  m->max_positions = 2048;
  m->kv_heads = 0;
  int head_dim = 0;
  if (int_field(cfg, "num_hidden_layers", 1, 256, true, &m->layers, err) ||
      int_field(cfg, "hidden_size", 8, 32768, true, &m->hidden, err) ||
      int_field(cfg, "num_attention_heads", 1, 256, true, &m->heads, err) ||
      int_field(cfg, "num_key_value_heads", 1, 256, false, &m->kv_heads, err) ||
      int_field(cfg, "intermediate_size", 1, 262144, true, &m->ffn, err) ||
      int_field(cfg, "vocab_size", 2, 1000000, true, &m->vocab, err) ||
      int_field(cfg, "max_position_embeddings", 1, 1048576, false, &m->max_positions, err) ||
      int_field(cfg, "head_dim", 1, 1024, false, &head_dim, err) || prob_field(cfg, "attention_dropout", &m->dropout, err) ||
      activation(cfg, "hidden_act", &m->mlp, err) || bool_field(cfg, "tie_word_embeddings", &m->tied, err))
    return -1;
  if (!m->kv_heads) m->kv_heads = m->heads;
  if (head_dim && head_dim * m->heads != m->hidden)
    return lab_fail(err, LAB_E_PLAN_UNSUPPORTED, "config.head_dim",
                    "config.json's head_dim (%d) times its %d heads is not hidden_size (%d): the planner assumes "
                    "hidden_size = heads x head_dim", head_dim, m->heads, m->hidden);
  return 0;
}

static int read_bert(const cJSON *cfg, lab_plan_model *m, lab_error *err) {
  m->arch = LAB_PLAN_BERT;
  m->mlp = LAB_PLAN_MLP_GELU;
  m->tied = true;
  m->dropout = 0.1;
  m->max_positions = 512;
  m->head = LAB_PLAN_HEAD_LM;
  if (int_field(cfg, "num_hidden_layers", 1, 256, true, &m->layers, err) ||
      int_field(cfg, "hidden_size", 8, 32768, true, &m->hidden, err) ||
      int_field(cfg, "num_attention_heads", 1, 256, true, &m->heads, err) ||
      int_field(cfg, "intermediate_size", 1, 262144, true, &m->ffn, err) ||
      int_field(cfg, "vocab_size", 2, 1000000, true, &m->vocab, err) ||
      int_field(cfg, "max_position_embeddings", 1, 131072, false, &m->max_positions, err) ||
      prob_field(cfg, "hidden_dropout_prob", &m->dropout, err) || activation(cfg, "hidden_act", &m->mlp, err) ||
      bool_field(cfg, "tie_word_embeddings", &m->tied, err))
    return -1;
  m->kv_heads = m->heads;
  return 0;
}

int lab_plan_config_read(const cJSON *cfg, lab_plan_model *m, lab_error *err) {
  if (!cJSON_IsObject(cfg))
    return lab_fail(err, LAB_E_INVALID_PARAM, "config", "config must be the JSON object of a config.json");
  for (int i = 0; moe_fields[i]; i++)
    if (present(cJSON_GetObjectItemCaseSensitive(cfg, moe_fields[i]))) {
      char param[48];
      snprintf(param, sizeof param, "config.%s", moe_fields[i]);
      return lab_fail(err, LAB_E_PLAN_UNSUPPORTED, param,
                      "config.json has %s: a mixture-of-experts model. The planner describes dense models only and "
                      "will not plan it as one.", moe_fields[i]);
    }
  for (int i = 0; multimodal_fields[i]; i++)
    if (present(cJSON_GetObjectItemCaseSensitive(cfg, multimodal_fields[i]))) {
      char param[48];
      snprintf(param, sizeof param, "config.%s", multimodal_fields[i]);
      return lab_fail(err, LAB_E_PLAN_UNSUPPORTED, param,
                      "config.json has %s: a multimodal model. The planner describes text-only transformers and "
                      "will not plan it as one.", multimodal_fields[i]);
    }
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cfg, "model_type"));
  if (!type)
    return lab_fail(err, LAB_E_INVALID_PARAM, "config.model_type",
                    "config.json has no model_type string: paste the whole config.json of the model");
  memset(m, 0, sizeof *m);
  int rc;
  if (strcmp(type, "gpt2") == 0) rc = read_gpt2(cfg, m, err);
  else if (strcmp(type, "llama") == 0 || strcmp(type, "mistral") == 0) rc = read_llama(cfg, m, err);
  else if (strcmp(type, "bert") == 0) rc = read_bert(cfg, m, err);
  else
    return lab_fail(err, LAB_E_PLAN_UNSUPPORTED, "config.model_type",
                    "config.json's model_type is \"%.40s\": the planner describes gpt2, llama, mistral and bert", type);
  if (rc) return rc;
  snprintf(m->name, sizeof m->name, "config.json (%.30s)", type);
  snprintf(m->source, sizeof m->source, "a pasted config.json, model_type %.40s", type);
  return 0;
}
