/* gpulab's entry point: dispatches to a command. The only place that
 * decides the process's exit status. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "runner.h"

int main(int argc, char **argv) {
  if (argc < 2) return srv_cli_help();
  const char *cmd = argv[1];
  int rest_c = argc - 2;
  char **rest = argv + 2;
  if (!strcmp(cmd, "serve")) {
    int rc = srv_cmd_serve(rest_c, rest);
    if (srv_serve_abandoned) {
      fflush(stdout);
      fflush(stderr);
      _exit(rc);
    }
    return rc;
  }
  if (!strcmp(cmd, "worker")) return srv_cmd_worker(rest_c, rest);
  if (!strcmp(cmd, "device")) return srv_cmd_device(rest_c, rest);
  if (!strcmp(cmd, "run")) return srv_cmd_run(rest_c, rest);
  if (!strcmp(cmd, "experiments")) return srv_cmd_experiments(rest_c, rest);
  if (!strcmp(cmd, "profiles")) return srv_cmd_profiles(rest_c, rest);
  if (!strcmp(cmd, "calibrate")) return srv_cmd_calibrate(rest_c, rest);
  if (!strcmp(cmd, "explain")) return srv_cmd_explain(rest_c, rest);
  if (!strcmp(cmd, "compare")) return srv_cmd_compare(rest_c, rest);
  if (!strcmp(cmd, "doctor")) return srv_cmd_doctor(rest_c, rest);
  if (!strcmp(cmd, "plan")) return srv_cmd_plan(rest_c, rest);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("gpulab %s\n", GPULAB_VERSION);
    return 0;
  }
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return srv_cli_help();
  return srv_cli_usage("unknown command");
}
