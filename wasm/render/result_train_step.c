/* train_step: the loss curve, the host's cumulative time when the loss is
 * read every step against every N steps, and one step on the two lanes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(train_step);

UI_RESULT_RENDERER(train_step) {
  static const char *const loss_id[] = {"loss"}, *const host_ids[] = {"host_every_step", "host_every_n"};
  ui_series_xy loss[1], host[2];
  const char *labels[2];
  char summary[400], v1[32], v2[32];
  int nl = ui_res_series(env, loss_id, 1, loss), nh = ui_res_series(env, host_ids, 2, host);
  double first = ui_res_metric(env, "first_loss"), last = ui_res_metric(env, "final_loss");
  if (nl) {
    snprintf(summary, sizeof summary, "The training loss fell from %s to %s over %d steps.",
             ui_fmt_value(first, UI_UNIT_PLAIN, v1), ui_fmt_value(last, UI_UNIT_PLAIN, v2), loss[0].n);
    labels[0] = loss[0].label;
    ui_line_chart c = {.summary = summary, .x_title = "step", .y_title = "loss (nats)", .x_scale = UI_SCALE_LINEAR,
                       .y_scale = UI_SCALE_LINEAR, .y_zero = true, .series = loss, .n_series = 1};
    ui_res_figure_begin(b, "The loss goes down");
    ui_chart_lines(b, &c);
    ui_chart_legend(b, labels, 1);
    ui_res_numbers_begin(b);
    ui_table_xy(b, "Loss after each step", "step", UI_UNIT_PLAIN, UI_UNIT_PLAIN, loss, 1);
    ui_res_figure_end(b);
  }
  if (nh) {
    const cJSON *p = ui_json_obj(env, "params");
    double every = 0;
    ui_json_num(p, "read_every", &every);
    snprintf(summary, sizeof summary,
             "Host time summed over the steps: reading the loss every step took %s in all, reading it every %.0f "
             "steps %s.",
             ui_fmt_value(ui_res_metric(env, "every_step_ms"), UI_UNIT_MS, v1), every,
             ui_fmt_value(ui_res_metric(env, "every_n_ms"), UI_UNIT_MS, v2));
    for (int i = 0; i < nh; i++) labels[i] = host[i].label;
    ui_line_chart c = {.summary = summary, .x_title = "step", .y_title = "host time so far (ms)",
                       .x_scale = UI_SCALE_LINEAR, .y_scale = UI_SCALE_LINEAR, .y_zero = true, .series = host,
                       .n_series = nh};
    ui_res_figure_begin(b, "Reading the loss every step costs time");
    ui_chart_lines(b, &c);
    ui_chart_legend(b, labels, nh);
    ui_res_numbers_begin(b);
    ui_table_xy(b, "Host time so far after each step (ms)", "step", UI_UNIT_PLAIN, UI_UNIT_PLAIN, host, nh);
    ui_res_figure_end(b);
  }
  ui_res_free(loss, nl);
  ui_res_free(host, nh);
  /* One step, as the title says: the timeline holds several, each ending
   * with the loss copied to the host; draw up to the first of those. */
  const cJSON *ev;
  double until = INFINITY;
  cJSON_ArrayForEach(ev, ui_json_arr(env, "timeline")) {
    const char *label = ui_json_str(ev, "label"), *lane = ui_json_str(ev, "lane");
    double e;
    if (label && lane && strncmp(lane, "gpu", 3) == 0 && strncmp(label, "loss to host", 12) == 0 &&
        ui_json_num(ev, "end_us", &e)) {
      until = e;
      break;
    }
  }
  ui_result_timeline_part(b, env, "One step: launches on the CPU, kernels on the GPU",
                          "Timeline of one training step: the CPU launches each kernel in a few microseconds, the GPU "
                          "runs them one after another, and loss.item() makes the CPU wait until the GPU is done and "
                          "the loss has been copied back.",
                          until, NULL, 0);
}
