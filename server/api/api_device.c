/* GET /api/device: the driver view beside the runtime view, and the verdict;
 * for a class on a shared store, those of its GPU workers and the list of
 * the live ones with their devices. */
#include <civetweb.h>
#include <stdio.h>

#include "api.h"
#include "cjson_compat.h"
#include "http.h"
#include "class.h"
#include "runs.h"
#include "workers_json.h"

/* This machine's views. One a few seconds old is answered at once with its
 * age while a probe refreshes it; a probe that has not answered within the
 * wait gives the last view, marked stale with its age; with none yet, NULL
 * (the answer is 503 device_check_timeout). */
static cJSON *local_view(srv_app *app) {
  lab_driver_view drv;
  lab_runtime_view rt;
  srv_views_state st = srv_runner_views_quick(&app->runner, &drv, &rt);
  if (st == SRV_VIEWS_NONE) return NULL;
  cJSON *o = lab_device_json(&drv, &rt);
  if (o && st == SRV_VIEWS_STALE) cJSON_AddTrueToObject(o, "stale");
  if (o && st != SRV_VIEWS_FRESH) /* how old the view is, said whenever it was not checked just now */
    cJSON_AddNumberToObject(o, "age_s", (double)(long)(srv_runner_views_age_s(&app->runner) * 10) / 10);
  return o;
}

/* A class on a shared store: its GPUs are its workers'. The view is the one
 * a live worker reported (a usable one first); with none alive, this
 * machine's, with a verdict that says why nothing runs on a GPU. */
static cJSON *workers_view(srv_app *app, const cJSON *all) {
  cJSON *o = srv_workers_device(all);
  if (o) return o;
  o = local_view(app);
  if (!o) return NULL;
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdict");
  cJSON_ReplaceItemInObjectCaseSensitive(v, "usable", cJSON_CreateFalse());
  cJSON_ReplaceItemInObjectCaseSensitive(v, "simulate", cJSON_CreateTrue());
  const char *why = srv_workers_unusable_reason(all);
  char summary[360];
  if (why) snprintf(summary, sizeof summary, "no usable GPU: the GPU workers alive take no runs (%.280s)", why);
  else snprintf(summary, sizeof summary, "no usable GPU: no GPU worker of this class has reported in the last 10 s");
  cJSON_ReplaceItemInObjectCaseSensitive(v, "summary", cJSON_CreateString(summary));
  cJSON_ReplaceItemInObjectCaseSensitive(
      v, "advice",
      cJSON_CreateString("Experiments are simulated meanwhile. The instructor starts GPU workers (gpulab worker "
                         "--store …, or gpulab serve --workers slurm:N); see docs/deploy.md."));
  return o;
}

int srv_api_device(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  cJSON *all = srv_class_runs_workers(app->cls ? app->cls->runs : NULL);
  cJSON *o = all ? workers_view(app, all) : local_view(app);
  if (!o) {
    cJSON_Delete(all);
    lab_error err;
    lab_fail(&err, LAB_E_DEVICE_CHECK_TIMEOUT, NULL,
             "the device check has not answered within %.0f s (a slow or stuck driver); retry in a few seconds — "
             "experiments run simulated meanwhile",
             app->runner.views_wait_s);
    return srv_send_error_retry(conn, &err, 2);
  }
  const cJSON *usable = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "verdict"), "usable");
  cJSON_AddStringToObject(o, "mode", cJSON_IsTrue(usable) ? "cuda" : "cpu");
  if (all) cJSON_AddItemToObject(o, "workers", srv_workers_brief(all, 1));
  cJSON_Delete(all);
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}
