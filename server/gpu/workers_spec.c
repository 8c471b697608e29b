/* --workers, parsed strictly (see workers_spec.h): names and values go to
 * srun's command line, so only the characters Slurm uses are accepted. */
#include "workers_spec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v is not empty and has only letters (when letters), digits and extra. */
static int only(const char *v, int letters, const char *extra) {
  if (!*v) return 0;
  for (const char *p = v; *p; p++)
    if (!isdigit((unsigned char)*p) && !(letters && isalpha((unsigned char)*p)) && !strchr(extra, *p)) return 0;
  return 1;
}

int srv_workers_spec_parse(const char *text, srv_workers_spec *out, char *msg, size_t n) {
  memset(out, 0, sizeof *out);
  if (strcmp(text, "local") == 0) return 0;
  if (strcmp(text, "none") == 0) {
    out->mode = SRV_WORKERS_NONE;
    return 0;
  }
  static const char usage[] =
      "--workers must be local, none or slurm:N[,partition=P][,time=T] (N from 1 to 256; P letters, digits, '_', "
      "'-', '.'; T as srun --time takes it, e.g. 4:00:00 or 1-00:00:00)";
  if (strncmp(text, "slurm:", 6) != 0) return snprintf(msg, n, "%s", usage), -1;
  out->mode = SRV_WORKERS_SLURM;
  char copy[256];
  if (strlen(text + 6) >= sizeof copy) return snprintf(msg, n, "%s", usage), -1;
  snprintf(copy, sizeof copy, "%s", text + 6);
  char *save = NULL;
  for (char *part = strtok_r(copy, ",", &save), *first = part; part; part = strtok_r(NULL, ",", &save)) {
    if (part == first) {
      char *end = NULL;
      long v = strtol(part, &end, 10);
      if (!only(part, 0, "") || *end || v < 1 || v > SRV_SLURM_MAX_WORKERS) return snprintf(msg, n, "%s", usage), -1;
      out->count = (int)v;
    } else if (strncmp(part, "partition=", 10) == 0 && only(part + 10, 1, "_-.") && strlen(part + 10) < sizeof out->partition) {
      snprintf(out->partition, sizeof out->partition, "%s", part + 10);
    } else if (strncmp(part, "time=", 5) == 0 && only(part + 5, 0, ":-") && strlen(part + 5) < sizeof out->time) {
      snprintf(out->time, sizeof out->time, "%s", part + 5);
    } else {
      return snprintf(msg, n, "%s", usage), -1;
    }
  }
  if (out->count < 1) return snprintf(msg, n, "%s", usage), -1;
  return 0;
}
