/* The class's settings followed from the store (see settings_watch.h). One
 * SELECT of one row a second per server. A limit is one aligned long, set
 * here and read by the request threads as it is: a request sees the old
 * value or the new one. What is sized at start (threads, connection
 * shares, the body limit) waits for this server's next start, and says so. */
#include "settings_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "runs.h"
#include "ticker.h"

struct srv_settings_watch {
  srv_class *cls;
  srv_ticker *ticker;
  char last[sizeof ((srv_store_class *)0)->config_json]; /* the stored text last taken */
  srv_store_class read; /* off the thread's stack */
  int failing;          /* the store could not be read: said once until it can */
};

static int sized_at_start(const char *key) {
  return !strcmp(key, "max_connections") || !strcmp(key, "max_connections_per_address") ||
         !strcmp(key, "max_body_kib");
}

static void changed(const char *key, long was, long now, void *arg) {
  (void)arg;
  fprintf(stderr, "gpulab: class limit limits.%s changed in the store from %ld to %ld (another server's "
          "--update-class): %s\n",
          key, was, now,
          sized_at_start(key) ? "it takes effect here at this server's next start" : "enforced here now");
}

/* The GPU queue's copies of the limits (runs.h). */
static void to_runs(srv_class_runs *cr, const srv_class_config *cfg) {
  if (!cr) return;
  cr->runs_per_minute = cfg->runs_per_minute;
  cr->gpu_seconds = (double)cfg->gpu_seconds_per_session;
  cr->max_gpu_mem_gib = (double)cfg->max_gpu_mem_gib;
  cr->deadline_s = (double)cfg->deadline_s;
  cr->learner_cap = cfg->queued_runs_per_learner;
  cr->queue_max = cfg->queue_max;
}

static void refresh(srv_settings_watch *w) {
  lab_error err = {0};
  int exists = 0;
  if (srv_store_class_get(w->cls->store, &w->read, &exists, &err) != 0) {
    if (!w->failing)
      fprintf(stderr, "gpulab: cannot read the class's settings from the store (%s); trying again every %.0f s\n",
              err.message, SRV_SETTINGS_REFRESH_S);
    w->failing = 1;
    return;
  }
  if (!exists) return; /* the class row is gone (a wiped store): keep what is enforced */
  if (w->failing) fprintf(stderr, "gpulab: the class's settings can be read from the store again\n");
  w->failing = 0;
  if (!strcmp(w->read.config_json, w->last)) return;
  char msg[300];
  if (srv_class_config_follow(&w->cls->cfg, w->read.config_json, changed, NULL, msg, sizeof msg) != 0) {
    fprintf(stderr, "gpulab: the class's settings in the store cannot be read (%s); keeping the ones in use\n", msg);
  } else {
    to_runs(w->cls->runs, &w->cls->cfg);
  }
  snprintf(w->last, sizeof w->last, "%s", w->read.config_json);
}

static void tick(void *arg) { refresh(arg); }

srv_settings_watch *srv_settings_watch_start(srv_class *cls) {
  srv_settings_watch *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->cls = cls;
  /* What this server started with is what it enforces already. */
  char *text = srv_class_config_shared_text(&cls->cfg);
  if (text) snprintf(w->last, sizeof w->last, "%s", text);
  cJSON_free(text);
  if (!(w->ticker = srv_ticker_start(SRV_SETTINGS_REFRESH_S, 0, tick, w))) {
    free(w);
    return NULL;
  }
  return w;
}

void srv_settings_watch_stop(srv_settings_watch *w) {
  if (!w) return;
  srv_ticker_stop(w->ticker);
  free(w);
}
