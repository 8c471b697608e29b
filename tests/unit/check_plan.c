/* plan: the training planner's settings (typed, bounded, bad ones refused
 * naming the field), its presets against their published parameter counts,
 * llm.c's own printed figures (reference 2 of tests/plan/README.md), the
 * answer's counters, bands, verdict, largest micro-batch and levers, and what
 * each training-code setting changes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "plan.h"
#include "plan_llmc.h"
#include "plan_presets.h"
#include "profiles.h"
#include "suites.h"

#define MIB (1024.0 * 1024.0)

static int settings(const char *json, lab_plan_settings *s, lab_error *err) {
  memset(err, 0, sizeof *err);
  cJSON *j = cJSON_Parse(json);
  ck_assert_msg(j != NULL, "test JSON does not parse: %s", json);
  int rc = lab_plan_settings_from_json(j, s, err);
  cJSON_Delete(j);
  return rc;
}

static lab_plan_memory memory(const char *json) {
  lab_plan_settings s;
  lab_error err;
  ck_assert_msg(settings(json, &s, &err) == 0, "%s: %s", json, err.message);
  lab_plan_memory m;
  ck_assert_msg(lab_plan_memory_of(&s, &m, &err) == 0, "%s: %s", json, err.message);
  return m;
}

static cJSON *answer(const char *json) {
  lab_error err = {0};
  cJSON *req = cJSON_Parse(json);
  ck_assert_ptr_nonnull(req);
  cJSON *a = lab_plan(req, &err);
  cJSON_Delete(req);
  ck_assert_msg(a != NULL, "%s: %s", json, err.message);
  return a;
}

static double num(const cJSON *o, const char *path) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", path);
  const cJSON *v = o;
  for (char *k = strtok(buf, "."); k && v; k = strtok(NULL, ".")) v = cJSON_GetObjectItemCaseSensitive(v, k);
  ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", path);
  return v->valuedouble;
}

START_TEST(plan_refuses_bad_settings_naming_the_field) {
  static const struct {
    const char *json;
    lab_err code;
    const char *param;
  } cases[] = {
      {"[1]", LAB_E_INVALID_JSON, ""},
      {"{\"preset\":\"gpt2-124m\",\"nope\":1}", LAB_E_INVALID_PARAM, "nope"},
      {"{\"preset\":\"gpt2-125m\"}", LAB_E_INVALID_PARAM, "preset"},
      {"{\"preset\":\"gpt2-124m\",\"layers\":0}", LAB_E_INVALID_PARAM, "layers"},
      {"{\"preset\":\"gpt2-124m\",\"layers\":257}", LAB_E_INVALID_PARAM, "layers"},
      {"{\"preset\":\"gpt2-124m\",\"batch\":2.5}", LAB_E_INVALID_PARAM, "batch"},
      {"{\"preset\":\"gpt2-124m\",\"batch\":\"8\"}", LAB_E_INVALID_PARAM, "batch"},
      {"{\"preset\":\"gpt2-124m\",\"precision\":\"fp64\"}", LAB_E_INVALID_PARAM, "precision"},
      {"{\"preset\":\"gpt2-124m\",\"tied\":1}", LAB_E_INVALID_PARAM, "tied"},
      {"{\"preset\":\"gpt2-124m\",\"seq\":2048}", LAB_E_INVALID_PARAM, "seq"},
      {"{\"preset\":\"gpt2-124m\",\"lora_rank\":8}", LAB_E_INVALID_PARAM, "lora_rank"},
      {"{\"preset\":\"gpt2-124m\",\"profile\":\"gtx-480\"}", LAB_E_UNKNOWN_PROFILE, "profile"},
      {"{\"preset\":\"gpt2-124m\",\"profile\":7}", LAB_E_INVALID_PARAM, "profile"},
      {"{\"preset\":\"gpt2-124m\",\"config\":{\"model_type\":\"gpt2\"}}", LAB_E_INVALID_PARAM, "config"},
      {"{\"preset\":\"gpt2-124m\",\"optimizer\":\"adafactor\",\"optimizer_impl\":\"fused\"}", LAB_E_INVALID_PARAM,
       "optimizer_impl"},
      {"{\"preset\":\"llama-3.2-1b\",\"lora_dropout\":0.1}", LAB_E_INVALID_PARAM, "lora_dropout"},
      {"{\"preset\":\"bert-base\",\"seq\":128,\"head\":\"classify\",\"loss\":\"fused\"}", LAB_E_INVALID_PARAM, "loss"},
      {"{\"arch\":\"llama\",\"layers\":2,\"hidden\":64,\"heads\":4,\"kv_heads\":3,\"vocab\":100}", LAB_E_INVALID_PARAM,
       "kv_heads"},
      {"{\"arch\":\"gpt2\",\"layers\":2,\"hidden\":64,\"heads\":4,\"kv_heads\":2,\"vocab\":100}", LAB_E_INVALID_PARAM,
       "kv_heads"},
      {"{\"arch\":\"gpt2\",\"layers\":2,\"hidden\":66,\"heads\":4,\"vocab\":100}", LAB_E_INVALID_PARAM, "heads"},
      {"{\"arch\":\"gpt2\",\"layers\":2,\"heads\":4,\"vocab\":100}", LAB_E_INVALID_PARAM, "hidden"},
      {"{\"arch\":\"cnn\",\"layers\":3,\"image\":20,\"channels\":8}", LAB_E_INVALID_PARAM, "image"},
      {"{\"arch\":\"cnn\",\"layers\":2,\"image\":32,\"channels\":8,\"checkpointing\":\"full\"}", LAB_E_INVALID_PARAM,
       "checkpointing"},
      {"{\"preset\":\"gpt2-124m\",\"layout\":\"llmc\",\"optimizer\":\"sgd\"}", LAB_E_INVALID_PARAM, "layout"},
      {"{\"config\":{\"model_type\":\"mixtral\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
       "\"num_attention_heads\":32,\"vocab_size\":32000,\"num_local_experts\":8}}",
       LAB_E_PLAN_UNSUPPORTED, "config.num_local_experts"},
      {"{\"config\":{\"model_type\":\"llava\",\"vision_config\":{}}}", LAB_E_PLAN_UNSUPPORTED, "config.vision_config"},
      {"{\"config\":{\"model_type\":\"t5\"}}", LAB_E_PLAN_UNSUPPORTED, "config.model_type"},
      {"{\"config\":{\"hidden_size\":64}}", LAB_E_INVALID_PARAM, "config.model_type"},
      {"{\"preset\":\"gpt2-124m\",\"cuda\":9.2}", LAB_E_INVALID_PARAM, "cuda"},
      {"{\"preset\":\"gpt2-124m\",\"cuda\":14.0}", LAB_E_INVALID_PARAM, "cuda"},
      {"{\"preset\":\"gpt2-124m\",\"cuda\":11.25}", LAB_E_INVALID_PARAM, "cuda"},
      {"{\"preset\":\"gpt2-124m\",\"cuda\":\"11.2\"}", LAB_E_INVALID_PARAM, "cuda"},
      {"{\"preset\":\"gpt2-124m\",\"module_loading\":\"jit\"}", LAB_E_INVALID_PARAM, "module_loading"},
      {"{\"preset\":\"gpt2-124m\",\"module_loading\":true}", LAB_E_INVALID_PARAM, "module_loading"},
      {"{\"preset\":\"gpt2-124m\",\"cuda\":11.6,\"module_loading\":\"lazy\"}", LAB_E_INVALID_PARAM,
       "module_loading"},
      {"{\"preset\":\"gpt2-124m\",\"backend\":\"cpu\",\"cuda\":12.4}", LAB_E_INVALID_PARAM, "cuda"},
      {"{\"preset\":\"gpt2-124m\",\"layout\":\"llmc\",\"precision\":\"bf16\",\"module_loading\":\"eager\"}",
       LAB_E_INVALID_PARAM, "module_loading"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lab_plan_settings s;
    lab_error err;
    ck_assert_msg(settings(cases[i].json, &s, &err) != 0, "accepted: %s", cases[i].json);
    ck_assert_msg(err.code == cases[i].code, "%s: code %s, want %s (%s)", cases[i].json, lab_err_code(err.code),
                  lab_err_code(cases[i].code), err.message);
    ck_assert_msg(strcmp(err.param, cases[i].param) == 0, "%s: param \"%s\", want \"%s\"", cases[i].json, err.param,
                  cases[i].param);
    ck_assert_msg(strlen(err.message) > 10, "%s: no message", cases[i].json);
  }
}
END_TEST

START_TEST(plan_settings_read_back_as_they_were_used) {
  lab_plan_settings s, t;
  lab_error err;
  ck_assert_int_eq(settings("{\"preset\":\"llama-3.2-1b\",\"seq\":2048,\"batch\":2,\"precision\":\"amp-bf16\","
                            "\"checkpointing\":\"full\",\"attention\":\"sdpa\",\"lora_rank\":16,"
                            "\"lora_targets\":\"qkvo\",\"lora_dropout\":0.05,\"profile\":\"l4\"}",
                            &s, &err),
                   0);
  cJSON *back = lab_plan_settings_json(&s);
  ck_assert_ptr_nonnull(back);
  /* The plan's settings, "model" (its label) included, given back as they are. */
  ck_assert_int_eq(lab_plan_settings_from_json(back, &t, &err), 0);
  ck_assert_str_eq(t.model.name, "llama-3.2-1b");
  /* A label that is not one is refused, naming the field. */
  const char *bad[] = {"1", "\"\"", "\"a\\tb\"", "\"0123456789012345678901234567890123456789012345678\""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[128];
    lab_plan_settings u;
    snprintf(text, sizeof text, "{\"model\":%s,\"layers\":2}", bad[i]);
    ck_assert_int_eq(settings(text, &u, &err), -1);
    ck_assert_str_eq(err.param, "model");
  }
  cJSON_Delete(back);
  lab_plan_memory a, b;
  ck_assert_int_eq(lab_plan_memory_of(&s, &a, &err), 0);
  ck_assert_int_eq(lab_plan_memory_of(&t, &b, &err), 0);
  ck_assert_uint_eq(a.allocated, b.allocated);
  ck_assert_uint_eq(a.device, b.device);
  ck_assert_str_eq(t.profile.name, "l4");
}
END_TEST

/* Each preset's parameters as the planner builds them, against the count
 * its model card publishes (rounded there, hence 5 %). */
START_TEST(plan_presets_agree_with_their_published_parameter_counts) {
  int checked = 0;
  for (int i = 0; i < lab_plan_preset_count(); i++) {
    const lab_plan_preset *p = lab_plan_preset_at(i);
    ck_assert_msg(p->source && strlen(p->source) > 20, "%s has no source", p->name);
    char json[96];
    snprintf(json, sizeof json, "{\"preset\":\"%s\",\"seq\":128,\"batch\":1}", p->name);
    lab_plan_memory m = memory(json);
    if (p->m.published_params <= 0) continue;
    double r = m.params / p->m.published_params;
    ck_assert_msg(fabs(r - 1) <= 0.05, "%s: %.0f parameters planned, %.0f published (ratio %.3f)", p->name, m.params,
                  p->m.published_params, r);
    checked++;
  }
  ck_assert_int_ge(checked, 10);
}
END_TEST

/* Reference 2: figures llm.c itself printed, reproduced by its layout.
 * README.md (karpathy/llm.c at f1e2ace6), the CPU reference on GPT-2 124M at
 * B=4, T=64: "num_parameters: 124439808" and "num_activations: 73323776"
 * (https://github.com/karpathy/llm.c/blob/f1e2ace6/README.md); pull request
 * 676: "With 350M model at batch size 20, activation memory goes from 12042
 * MiB" (https://github.com/karpathy/llm.c/pull/676), train_gpt2.cu at T=1024
 * with cuDNN, recomputing GELU and layernorm (-r 2, the level the pull
 * request adds to). */
START_TEST(plan_llmc_layout_reproduces_llm_c_printed_figures) {
  lab_plan_llmc cpu = {.layers = 12, .channels = 768, .heads = 12, .vocab = 50257, .max_seq = 1024,
                       .batch = 4, .seq = 64, .cpu = true};
  lab_plan_llmc_bytes b;
  lab_plan_llmc_sizes(&cpu, &b);
  ck_assert_msg(fabs((double)b.params / 124439808 - 1) <= 0.01, "params %llu", (unsigned long long)b.params);
  ck_assert_msg(fabs((double)(b.activations / 4) / 73323776 - 1) <= 0.01, "activations %llu floats",
                (unsigned long long)(b.activations / 4));
  lab_plan_llmc cu = {.layers = 24, .channels = 1024, .heads = 16, .vocab = 50304, .max_seq = 1024,
                      .batch = 20, .seq = 1024, .recompute = 2, .cudnn = true};
  lab_plan_llmc_sizes(&cu, &b);
  ck_assert_msg(fabs(b.activations / MIB / 12042 - 1) <= 0.01, "activations %.0f MiB, llm.c printed 12042",
                b.activations / MIB);
  /* and the planner's own settings reach that layout */
  lab_plan_memory m = memory("{\"preset\":\"gpt2-355m\",\"layout\":\"llmc\",\"precision\":\"bf16\",\"batch\":20,"
                             "\"seq\":1024,\"checkpointing\":\"full\",\"attention\":\"sdpa\",\"profile\":\"a100-sxm\"}");
  ck_assert_msg(fabs(m.activations / MIB / 12042 - 1) <= 0.01, "settings: activations %.0f MiB", m.activations / MIB);
}
END_TEST

/* No band is wider than -25 % .. +25 %, and each contains its point. */
START_TEST(plan_bands_stay_within_a_quarter) {
  const double lo[] = {LAB_PLAN_ALLOCATED_LOW, LAB_PLAN_RESERVED_LOW, LAB_PLAN_DEVICE_LOW};
  const double hi[] = {LAB_PLAN_ALLOCATED_HIGH, LAB_PLAN_RESERVED_HIGH, LAB_PLAN_DEVICE_HIGH};
  for (int i = 0; i < 3; i++) {
    ck_assert(lo[i] >= 0.75 && lo[i] < 1);
    ck_assert(hi[i] <= 1.25 && hi[i] > 1);
  }
  cJSON *a = answer("{\"preset\":\"gpt2-124m\",\"seq\":512,\"batch\":4,\"profile\":\"t4\"}");
  static const char *const counters[] = {"allocated", "reserved", "device"};
  for (int i = 0; i < 3; i++) {
    char key[32], band[32];
    snprintf(key, sizeof key, "memory.%s_bytes", counters[i]);
    snprintf(band, sizeof band, "%s_band", counters[i]);
    double point = num(a, key);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "memory"), band);
    ck_assert_int_eq(cJSON_GetArraySize(b), 2);
    double l = cJSON_GetArrayItem(b, 0)->valuedouble, h = cJSON_GetArrayItem(b, 1)->valuedouble;
    ck_assert(l <= point && point <= h && l >= 0.75 * point && h <= 1.25 * point);
  }
  double s = num(a, "step_ms");
  const cJSON *sb = cJSON_GetObjectItemCaseSensitive(a, "step_ms_band");
  ck_assert(cJSON_GetArrayItem(sb, 0)->valuedouble <= s && s <= cJSON_GetArrayItem(sb, 1)->valuedouble);
  cJSON_Delete(a);
}
END_TEST

/* The step's estimate hides the host behind the GPU; its band's top does
 * not (the H100 lease's small Llama took 1.6 times its planned GPU work):
 * a step with a sizeable host share reaches past 1.25 of the estimate. */
START_TEST(plan_step_band_top_adds_the_hidden_host) {
  cJSON *a = answer("{\"arch\":\"llama\",\"layers\":8,\"hidden\":1024,\"heads\":16,\"kv_heads\":4,"
                    "\"vocab\":32000,\"seq\":1024,\"batch\":4,\"precision\":\"bf16\",\"checkpointing\":\"selective\","
                    "\"attention\":\"sdpa\",\"profile\":\"h100-sxm\"}");
  double step = num(a, "step_ms"), host = num(a, "time.host_ms");
  double all = num(a, "time.matmul_ms") + num(a, "time.memory_bound_ms") + host + num(a, "time.optimizer_ms");
  const cJSON *sb = cJSON_GetObjectItemCaseSensitive(a, "step_ms_band");
  double low = cJSON_GetArrayItem(sb, 0)->valuedouble, high = cJSON_GetArrayItem(sb, 1)->valuedouble;
  ck_assert(host > 0.2 * step);
  ck_assert(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "time"), "host_bound")));
  ck_assert_msg(fabs(high / (1.25 * all) - 1) < 1e-9, "top %.3f ms, all four terms %.3f ms", high, all);
  ck_assert(high > 1.25 * step * 1.2);
  ck_assert(fabs(low / (0.8 * step) - 1) < 1e-9);
  cJSON_Delete(a);
}
END_TEST

START_TEST(plan_answer_holds_the_counters_components_verdict_and_time) {
  cJSON *a = answer("{\"preset\":\"gpt2-124m\",\"seq\":512,\"batch\":4,\"profile\":\"t4\"}");
  double alloc = num(a, "memory.allocated_bytes"), res = num(a, "memory.reserved_bytes"),
         dev = num(a, "memory.device_bytes");
  ck_assert(alloc > 1e9 && alloc <= res && res < dev);
  const cJSON *comps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "memory"), "components");
  static const char *const want[] = {"weights", "gradients", "optimizer_state", "activations"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    bool found = false;
    const cJSON *c;
    cJSON_ArrayForEach(c, comps) found |= strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "id")),
                                                 want[i]) == 0 && num(c, "bytes") > 0;
    ck_assert_msg(found, "no %s component", want[i]);
  }
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "fits")));
  ck_assert(num(a, "room_bytes") > 0);
  ck_assert(num(a, "step_ms") > 1 && num(a, "tokens_per_s") > 0);
  ck_assert(strlen(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "verdict"))) > 20);
  cJSON_Delete(a);
  /* 7B fully fine-tuned in fp32 on a T4 does not fit, and says so */
  a = answer("{\"preset\":\"llama-2-7b\",\"seq\":512,\"batch\":1,\"profile\":\"t4\"}");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "fits")));
  ck_assert(num(a, "room_bytes") < 0);
  ck_assert(num(a, "max_batch") == 0);
  cJSON_Delete(a);
}
END_TEST

/* The largest micro-batch fits and the next one does not. */
START_TEST(plan_largest_micro_batch_fits_and_one_more_does_not) {
  static const char *const base[] = {"\"preset\":\"gpt2-124m\",\"seq\":1024,\"profile\":\"t4\"",
                                     "\"preset\":\"llama-3.2-1b\",\"seq\":512,\"precision\":\"bf16\",\"profile\":\"l4\"",
                                     "\"preset\":\"bert-base\",\"seq\":512,\"precision\":\"amp-fp16\",\"profile\":\"t4\""};
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
    char json[256];
    snprintf(json, sizeof json, "{%s,\"batch\":1}", base[i]);
    cJSON *a = answer(json);
    int mb = (int)num(a, "max_batch");
    double cap = num(a, "memory.capacity_bytes");
    cJSON_Delete(a);
    ck_assert_msg(mb >= 1, "%s: max_batch %d", base[i], mb);
    snprintf(json, sizeof json, "{%s,\"batch\":%d}", base[i], mb);
    ck_assert_msg(memory(json).device <= cap, "%s: batch %d does not fit", base[i], mb);
    snprintf(json, sizeof json, "{%s,\"batch\":%d}", base[i], mb + 1);
    ck_assert_msg(memory(json).device > cap, "%s: batch %d fits too", base[i], mb + 1);
  }
}
END_TEST

START_TEST(plan_levers_say_what_they_save_and_what_they_cost) {
  cJSON *a = answer("{\"preset\":\"gpt2-124m\",\"seq\":1024,\"batch\":8,\"profile\":\"t4\"}");
  const cJSON *levers = cJSON_GetObjectItemCaseSensitive(a, "levers"), *l;
  static const char *const want[] = {"halve_batch", "accumulate", "shorter_seq", "amp", "checkpointing", "sdpa",
                                     "lighter_optimizer"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    bool found = false;
    cJSON_ArrayForEach(l, levers) {
      if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "id")), want[i])) continue;
      found = true;
      ck_assert_msg(num(l, "saves_bytes") > 0, "%s saves nothing", want[i]);
      const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "text"));
      ck_assert_msg(strstr(text, "saves") && strstr(text, "step time"), "%s: %s", want[i], text);
    }
    ck_assert_msg(found, "no %s lever", want[i]);
  }
  /* checkpointing costs time, halving the batch with accumulation keeps the tokens */
  cJSON_ArrayForEach(l, levers) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "id"));
    if (strcmp(id, "checkpointing") == 0) ck_assert(num(l, "step_time_pct") > 5);
  }
  cJSON_Delete(a);
  /* LoRA is offered for a Llama model fully fine-tuned */
  a = answer("{\"preset\":\"llama-3.2-1b\",\"seq\":1024,\"batch\":1,\"profile\":\"t4\"}");
  bool lora = false;
  cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(a, "levers")) lora |=
      strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "id")), "lora") == 0 && num(l, "saves_bytes") > 0;
  ck_assert(lora);
  cJSON_Delete(a);
}
END_TEST

/* Full fine-tuning makes one gradient per weight, whatever the model and its head. */
START_TEST(plan_every_model_has_a_gradient_per_weight) {
  static const char *const models[] = {
      "{\"preset\":\"gpt2-124m\",\"seq\":128,\"batch\":2}",
      "{\"preset\":\"llama-3.2-1b\",\"seq\":128,\"batch\":1}",
      "{\"preset\":\"bert-base\",\"seq\":128,\"batch\":2}",
      "{\"preset\":\"bert-base\",\"head\":\"classify\",\"classes\":3,\"seq\":128,\"batch\":2}",
      "{\"preset\":\"cnn-cifar10\",\"batch\":16}",
  };
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    lab_plan_memory m = memory(models[i]);
    ck_assert_msg(m.gradients == m.weights, "%s: %llu bytes of gradients for %llu of weights", models[i],
                  (unsigned long long)m.gradients, (unsigned long long)m.weights);
  }
  lab_plan_memory cnn = memory("{\"preset\":\"cnn-cifar10\",\"batch\":16}");
  ck_assert(cnn.act_src[LAB_PLAN_SRC_CONV] > 0);
}
END_TEST

/* What the training code does shows where PyTorch would show it. */
START_TEST(plan_training_code_settings_change_what_they_should) {
  const char *b = "\"preset\":\"gpt2-124m\",\"seq\":256,\"batch\":2,\"profile\":\"a100-sxm\"";
  char json[256];
  snprintf(json, sizeof json, "{%s,\"optimizer_impl\":\"foreach\"}", b);
  lab_plan_memory foreach = memory(json);
  snprintf(json, sizeof json, "{%s,\"optimizer_impl\":\"for_loop\"}", b);
  lab_plan_memory loop = memory(json);
  snprintf(json, sizeof json, "{%s,\"optimizer_impl\":\"fused\"}", b);
  lab_plan_memory fused = memory(json);
  ck_assert_uint_eq(foreach.optimizer_temp, foreach.weights); /* one temporary of every parameter */
  ck_assert(loop.optimizer_temp > 0 && loop.optimizer_temp < foreach.optimizer_temp); /* two of one parameter */
  ck_assert_uint_eq(fused.optimizer_temp, 0);
  /* gradients kept as zeros are there in the next forward */
  snprintf(json, sizeof json, "{%s}", b);
  lab_plan_memory none = memory(json);
  snprintf(json, sizeof json, "{%s,\"zero_grad\":\"zeros\"}", b);
  lab_plan_memory zeros = memory(json);
  ck_assert(zeros.tensor_peak > none.tensor_peak);
  /* plain F.cross_entropy on bf16 logits keeps no fp32 copy */
  snprintf(json, sizeof json, "{%s,\"precision\":\"bf16\"}", b);
  lab_plan_memory hf = memory(json);
  snprintf(json, sizeof json, "{%s,\"precision\":\"bf16\",\"loss\":\"plain\"}", b);
  lab_plan_memory plain = memory(json);
  ck_assert(plain.act_src[LAB_PLAN_SRC_LOGITS] < 0.55 * hf.act_src[LAB_PLAN_SRC_LOGITS]); /* bf16, not fp32 */
  /* LoRA dropout keeps a mask and an output per adapter; q, k, v, o train more than q, v */
  lab_plan_memory qv = memory("{\"preset\":\"llama-3.2-1b\",\"seq\":256,\"batch\":1,\"lora_rank\":16}");
  lab_plan_memory qkvo =
      memory("{\"preset\":\"llama-3.2-1b\",\"seq\":256,\"batch\":1,\"lora_rank\":16,\"lora_targets\":\"qkvo\"}");
  lab_plan_memory drop = memory(
      "{\"preset\":\"llama-3.2-1b\",\"seq\":256,\"batch\":1,\"lora_rank\":16,\"lora_targets\":\"qkvo\",\"lora_dropout\":0.1}");
  ck_assert(qkvo.trainable > qv.trainable);
  ck_assert(drop.act_src[LAB_PLAN_SRC_DROPOUT] > qkvo.act_src[LAB_PLAN_SRC_DROPOUT]);
}
END_TEST

/* The CUDA context follows how the CUDA version loads kernels: the
 * profile's lazy estimate by default and from 11.7, the published eager
 * sizes before it (or with module_loading eager); nvidia-smi's figure moves
 * by the context and nothing else does. */
START_TEST(plan_cuda_context_follows_module_loading) {
  const lab_profile *v100 = lab_profile_find("v100-sxm");
  const char *b = "\"preset\":\"bert-large\",\"seq\":512,\"batch\":4,\"profile\":\"v100-sxm\"";
  char json[256];
  snprintf(json, sizeof json, "{%s}", b);
  lab_plan_memory lazy = memory(json);
  /* lazily, the kernels an fp32 eager step loads come on top: 224 MiB on the H100 lease */
  ck_assert_uint_eq(lazy.context, v100->context_bytes + 224 * MIB);
  snprintf(json, sizeof json, "{%s,\"cuda\":12.4}", b);
  ck_assert_uint_eq(memory(json).context, v100->context_bytes + 224 * MIB);
  snprintf(json, sizeof json, "{%s,\"precision\":\"amp-bf16\"}", b);
  ck_assert_uint_eq(memory(json).context, v100->context_bytes + 240 * MIB);
  static const struct {
    const char *extra;
    double mib;
  } eager[] = {{"\"cuda\":10.2", 719}, {"\"cuda\":11.0", 1685}, {"\"cuda\":11.6", 1685},
               {"\"cuda\":11.7,\"module_loading\":\"eager\"", 615.75}, {"\"module_loading\":\"eager\"", 615.75}};
  for (size_t i = 0; i < sizeof eager / sizeof eager[0]; i++) {
    snprintf(json, sizeof json, "{%s,%s}", b, eager[i].extra);
    lab_plan_memory m = memory(json);
    ck_assert_msg(m.context == (uint64_t)(eager[i].mib * MIB), "%s: context %.2f MiB, want %.2f", eager[i].extra,
                  m.context / MIB, eager[i].mib);
    ck_assert_uint_eq(m.device - m.context, lazy.device - lazy.context);
    ck_assert_uint_eq(m.allocated, lazy.allocated);
  }
  /* a CUDA before 11.7 reads back as eager; the answer names the figure */
  lab_plan_settings s;
  lab_error err;
  ck_assert_int_eq(settings("{\"preset\":\"gpt2-124m\",\"cuda\":11.2}", &s, &err), 0);
  ck_assert_int_eq(s.module_loading, LAB_PLAN_LOADING_EAGER);
  cJSON *back = lab_plan_settings_json(&s);
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(back, "module_loading")), "eager");
  ck_assert(cJSON_GetObjectItemCaseSensitive(back, "cuda")->valuedouble == 11.2);
  cJSON_Delete(back);
  const char *what = NULL;
  lab_plan_context_bytes(&s, &what);
  ck_assert_ptr_nonnull(strstr(what, "11.0-11.6"));
  /* no cuda given: none is reported back */
  ck_assert_int_eq(settings("{\"preset\":\"gpt2-124m\"}", &s, &err), 0);
  back = lab_plan_settings_json(&s);
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(back, "cuda"));
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(back, "module_loading")), "lazy");
  cJSON_Delete(back);
}
END_TEST

/* A learner's own profile (as gpulab calibrate writes it) is the GPU planned for. */
START_TEST(plan_takes_a_learners_own_profile) {
  cJSON *p = lab_profile_json(lab_profile_find("t4"));
  ck_assert_ptr_nonnull(p);
  cJSON_ReplaceItemInObjectCaseSensitive(p, "name", cJSON_CreateString("my-t4-8g"));
  cJSON_ReplaceItemInObjectCaseSensitive(p, "memory_bytes", cJSON_CreateNumber(8.0 * 1024 * MIB));
  cJSON *req = cJSON_Parse("{\"preset\":\"gpt2-124m\",\"seq\":1024,\"batch\":8}");
  cJSON_AddItemToObject(req, "profile", p);
  lab_error err = {0};
  cJSON *a = lab_plan(req, &err);
  cJSON_Delete(req);
  ck_assert_msg(a != NULL, "%s", err.message);
  ck_assert(num(a, "memory.capacity_bytes") == 8.0 * 1024 * MIB);
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                       cJSON_GetObjectItemCaseSensitive(a, "settings"), "profile")),
                   "my-t4-8g");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "fits")));
  cJSON_Delete(a);
}
END_TEST

Suite *make_plan_suite(void) {
  Suite *s = suite_create("plan");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, plan_refuses_bad_settings_naming_the_field);
  tcase_add_test(tc, plan_settings_read_back_as_they_were_used);
  tcase_add_test(tc, plan_presets_agree_with_their_published_parameter_counts);
  tcase_add_test(tc, plan_llmc_layout_reproduces_llm_c_printed_figures);
  tcase_add_test(tc, plan_bands_stay_within_a_quarter);
  tcase_add_test(tc, plan_step_band_top_adds_the_hidden_host);
  tcase_add_test(tc, plan_answer_holds_the_counters_components_verdict_and_time);
  tcase_add_test(tc, plan_largest_micro_batch_fits_and_one_more_does_not);
  tcase_add_test(tc, plan_levers_say_what_they_save_and_what_they_cost);
  tcase_add_test(tc, plan_every_model_has_a_gradient_per_weight);
  tcase_add_test(tc, plan_training_code_settings_change_what_they_should);
  tcase_add_test(tc, plan_takes_a_learners_own_profile);
  tcase_add_test(tc, plan_cuda_context_follows_module_loading);
  suite_add_tcase(s, tc);
  return s;
}
