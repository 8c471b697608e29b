/* Option parsing shared by every command, and `gpulab help`. */
#include "cli.h"

#include "cjson_compat.h"
#include "config.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int srv_cli_option(int argc, char **argv, int *i, const char *name, const char **value) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (a[n] != 0) return 0;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return 1;
}

int srv_cli_long(const char *text, long min, long max, long *out) {
  if (!text || !*text) return -1;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int srv_cli_usage(const char *message) {
  fprintf(stderr, "gpulab: %s\nRun 'gpulab help' for the commands and options.\n", message);
  return 2;
}

int srv_cli_help(void) {
  puts("gpulab — learn how CUDA behaves during model training, by running it.\n"
       "\n"
       "Commands:\n"
       "  gpulab device [--json]                     driver view vs runtime view, and a verdict\n"
       "  gpulab experiments [--json|--names|--live] the experiments and their parameters (--names: one a line;\n"
       "                                             --live: those a GPU answers, one a line)\n"
       "  gpulab profiles [--json]                   device profiles for the simulator\n"
       "  gpulab run NAME [--PARAM=VALUE ...] [--backend auto|cuda|simulated] [--profile NAME] [--json]\n"
       "                                             run one experiment; --trace FILE also writes its\n"
       "                                             timeline as a Chrome trace (docs/trace.md)\n"
       "  gpulab calibrate [--json] [--out FILE]    fit a profile to this GPU and check the simulator\n"
       "  gpulab explain FILE|- [--json]             explain a pasted CUDA/PyTorch error, nvidia-smi or collect_env\n"
       "  gpulab explain --diagnoses                 the explanations themselves, as JSON\n"
       "  gpulab compare RUN.json|- [--json] [--profile NAME] [--claims FILE]\n"
       "                                             your own run with the measurement kit (measure.py) beside\n"
       "                                             the simulator: measured, predicted, ratio, physically plausible\n"
       "  gpulab doctor FILE[.gz]|- [--json]         read your own PyTorch profiler trace: idle GPU, launches, copies\n"
       "                                             output (- reads standard input; nothing leaves this machine)\n"
       "  gpulab plan [--json] [--preset NAME | --config FILE] --layers N --hidden H --heads A [--kv-heads K]\n"
       "      [--ffn F] [--mlp gelu|gelu_tanh|swiglu] --vocab V --seq S --batch B [--accum N]\n"
       "      --precision fp32|amp-fp16|amp-bf16|bf16 --optimizer adamw|sgd|adafactor|adam8bit\n"
       "      --checkpointing none|selective|full --attention eager|sdpa [--loss standard|fused|plain]\n"
       "      [--lora-rank R] [--lora-targets qv|qkvo|all] [--lora-dropout P] --profile NAME | --profile-file FILE\n"
       "      [--optimizer-impl auto|foreach|for_loop|fused] [--zero-grad none|zeros]\n"
       "      [--cuda VERSION] [--module-loading lazy|eager]\n"
       "      [--arch gpt2|llama|bert|cnn] [--tied true|false] [--dropout P] [--max-positions N]\n"
       "      [--head lm|classify] [--image PX --channels C --in-channels C --classes N] [--settings FILE]\n"
       "                                             will this training fit, and how fast is a step (docs/plan.md);\n"
       "                                             --presets lists the presets of real models\n"
       "  gpulab serve [--host H] [--port N] [--root DIR] [--keys DIR] [--deadline S] [--profile-file F]\n"
       "                                             serve the web app and the API (port 0: any free port)\n"
       "      [--workers local|none|slurm:N[,partition=P][,time=T]] [--trusted-proxy ADDR[,ADDR…]]\n"
       "      [--update-class] [--new-instructor-token]\n"
       "                                             a class's GPU workers: in this server (local), elsewhere\n"
       "                                             (none), or N Slurm jobs it keeps (srun --gres=gpu:1); needs\n"
       "                                             --store postgresql://… unless local. --trusted-proxy: take\n"
       "                                             the client address from X-Forwarded-For of those proxies.\n"
       "                                             The class lives in its store: --update-class changes its\n"
       "                                             settings, --new-instructor-token its token (else a start\n"
       "                                             that contradicts it is refused)\n"
       "      [--sim-cpu-budget-ms MS] [--sim-slots N] [--sim-wait-ms MS]\n"
       "                                             simulated runs: refuse one estimated above MS of CPU\n"
       "                                             (default 2000; over_cpu_budget), run N at once (default 0:\n"
       "                                             one per CPU), let others wait MS (default 10000), then busy\n"
       "  gpulab worker --store postgresql://… [--gpu N] [--grace S]\n"
       "                                             a GPU worker of a class's shared queue (GPULAB_STORE may\n"
       "                                             give the store); stops on SIGTERM, handing back its run\n"
       "  gpulab version | help\n"
       "\n"
       "Exit status: 0 success, 1 the command failed, 2 usage error.\n");
  fputs(srv_class_help, stdout);
  return 0;
}

FILE *srv_cli_open(const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) fprintf(stderr, "gpulab: cannot open %s\n", path);
  return f;
}

char *srv_cli_read(const char *path, size_t max, size_t *n, lab_error *err) {
  FILE *f = srv_cli_open(path);
  if (!f) return NULL;
  char *buf = malloc(max + 1);
  *n = buf ? fread(buf, 1, max + 1, f) : 0;
  if (f != stdin) fclose(f);
  if (!buf) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  return buf;
}

int srv_cli_answer(cJSON *env, const lab_error *err, int json, void (*print_text)(const cJSON *env)) {
  if (!env) {
    if (json) {
      cJSON *e = lab_error_json(err);
      char *t = cJSON_Print(e);
      if (t) puts(t);
      cJSON_free(t);
      cJSON_Delete(e);
    } else {
      fprintf(stderr, "gpulab: %s (%s)\n", err->message, lab_err_code(err->code));
    }
    return 1;
  }
  if (json) {
    char *t = cJSON_Print(env);
    if (t) puts(t);
    cJSON_free(t);
  } else {
    print_text(env);
  }
  cJSON_Delete(env);
  return 0;
}
