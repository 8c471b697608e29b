/* Presets: real models with their published architecture and parameter
 * count, each from the model's own config.json or paper (the source line
 * says which). A preset fills the model; flags and fields override it. */
#include "plan_presets.h"

#include <string.h>

#include "cjson_compat.h"

#define GPT2(n, l, h, a, p, src)                                                                                \
  {.name = n, .m = {.arch = LAB_PLAN_GPT2, .layers = l, .hidden = h, .heads = a, .kv_heads = a, .ffn = 4 * h,    \
                    .mlp = LAB_PLAN_MLP_GELU_TANH, .vocab = 50257, .max_positions = 1024, .tied = true,          \
                    .dropout = 0.1, .published_params = p},                                                     \
   .source = src}

static const lab_plan_preset presets[] = {
    GPT2("gpt2-124m", 12, 768, 12, 124e6,
         "openai-community/gpt2 config.json (n_layer 12, n_embd 768, n_head 12, gelu_new, dropout 0.1); 124M "
         "parameters on its model card: https://huggingface.co/openai-community/gpt2"),
    GPT2("gpt2-355m", 24, 1024, 16, 355e6,
         "openai-community/gpt2-medium config.json (24 layers, 1024, 16 heads); 355M parameters on its model "
         "card: https://huggingface.co/openai-community/gpt2-medium"),
    GPT2("gpt2-774m", 36, 1280, 20, 774e6,
         "openai-community/gpt2-large config.json (36 layers, 1280, 20 heads); 774M parameters on its model "
         "card: https://huggingface.co/openai-community/gpt2-large"),
    GPT2("gpt2-1.5b", 48, 1600, 25, 1.5e9,
         "openai-community/gpt2-xl config.json (48 layers, 1600, 25 heads); 1.5B parameters on its model card: "
         "https://huggingface.co/openai-community/gpt2-xl"),
    {.name = "bert-base",
     .m = {.arch = LAB_PLAN_BERT, .layers = 12, .hidden = 768, .heads = 12, .kv_heads = 12, .ffn = 3072,
           .mlp = LAB_PLAN_MLP_GELU, .vocab = 30522, .max_positions = 512, .tied = true, .dropout = 0.1,
           .head = LAB_PLAN_HEAD_LM, .published_params = 110e6},
     .source = "google-bert/bert-base-uncased config.json; 110M parameters in the BERT paper (Devlin et al. "
               "2018, table of model sizes): https://arxiv.org/abs/1810.04805"},
    {.name = "bert-large",
     .m = {.arch = LAB_PLAN_BERT, .layers = 24, .hidden = 1024, .heads = 16, .kv_heads = 16, .ffn = 4096,
           .mlp = LAB_PLAN_MLP_GELU, .vocab = 30522, .max_positions = 512, .tied = true, .dropout = 0.1,
           .head = LAB_PLAN_HEAD_LM, .published_params = 340e6},
     .source = "google-bert/bert-large-uncased config.json; 340M parameters in the BERT paper: "
               "https://arxiv.org/abs/1810.04805"},
    {.name = "llama-3.2-1b",
     .m = {.arch = LAB_PLAN_LLAMA, .layers = 16, .hidden = 2048, .heads = 32, .kv_heads = 8, .ffn = 8192,
           .mlp = LAB_PLAN_MLP_SWIGLU, .vocab = 128256, .max_positions = 131072, .tied = true,
           .published_params = 1.23e9},
     .source = "meta-llama/Llama-3.2-1B config.json (16 layers, 2048, 32 heads, 8 KV heads, 8192, tied); 1.23B "
               "parameters on its model card: https://huggingface.co/meta-llama/Llama-3.2-1B"},
    {.name = "llama-3.2-3b",
     .m = {.arch = LAB_PLAN_LLAMA, .layers = 28, .hidden = 3072, .heads = 24, .kv_heads = 8, .ffn = 8192,
           .mlp = LAB_PLAN_MLP_SWIGLU, .vocab = 128256, .max_positions = 131072, .tied = true,
           .published_params = 3.21e9},
     .source = "meta-llama/Llama-3.2-3B config.json (28 layers, 3072, 24 heads, 8 KV heads, 8192, tied); 3.21B "
               "parameters on its model card: https://huggingface.co/meta-llama/Llama-3.2-3B"},
    {.name = "llama-2-7b",
     .m = {.arch = LAB_PLAN_LLAMA, .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 11008,
           .mlp = LAB_PLAN_MLP_SWIGLU, .vocab = 32000, .max_positions = 4096, .tied = false,
           .published_params = 7e9},
     .source = "meta-llama/Llama-2-7b-hf config.json (32 layers, 4096, 32 heads, 11008, untied); 7B parameters "
               "in the Llama 2 paper: https://arxiv.org/abs/2307.09288"},
    {.name = "llama-2-7b-lora",
     .m = {.arch = LAB_PLAN_LLAMA, .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 11008,
           .mlp = LAB_PLAN_MLP_SWIGLU, .vocab = 32000, .max_positions = 4096, .tied = false,
           .published_params = 7e9},
     .lora_rank = 8,
     .source = "Llama 2 7B as above, with PEFT's LoraConfig defaults (r 8 on q_proj and v_proj): "
               "https://arxiv.org/abs/2307.09288"},
    {.name = "cnn-cifar10",
     .m = {.arch = LAB_PLAN_CNN, .layers = 3, .image = 32, .channels = 32, .in_channels = 3, .classes = 10},
     .source = "a small CIFAR-10 net: three conv 3x3 + ReLU + max-pool blocks of 32, 64 and 128 channels, "
               "then a linear classifier"},
};

int lab_plan_preset_count(void) { return (int)(sizeof presets / sizeof presets[0]); }

const lab_plan_preset *lab_plan_preset_at(int i) { return i >= 0 && i < lab_plan_preset_count() ? &presets[i] : NULL; }

const lab_plan_preset *lab_plan_preset_find(const char *name) {
  for (int i = 0; name && i < lab_plan_preset_count(); i++)
    if (strcmp(presets[i].name, name) == 0) return &presets[i];
  return NULL;
}

cJSON *lab_plan_presets_json(void) {
  cJSON *list = cJSON_CreateArray();
  for (int i = 0; list && i < lab_plan_preset_count(); i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", presets[i].name);
    cJSON_AddStringToObject(o, "arch", lab_plan_arch_names[presets[i].m.arch]);
    if (presets[i].m.published_params > 0) cJSON_AddNumberToObject(o, "published_params", presets[i].m.published_params);
    cJSON_AddStringToObject(o, "source", presets[i].source);
    cJSON_AddItemToArray(list, o);
  }
  return list;
}
