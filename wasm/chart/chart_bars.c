/* Bar charts: horizontal bars (labels above each bar, so they stay legible
 * on a phone), stacked columns against limit lines, and a timeline whose
 * lanes are the CPU and the GPU streams. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "chart_draw.h"

#define BAR_W 420.0
#define BAR_ROW 46.0

void ui_chart_bars(ui_buf *b, const ui_bar_chart *c) {
  ui_axis ax;
  double hi = 0;
  char t[32];
  for (int i = 0; i < c->n; i++)
    if (isfinite(c->bars[i].value) && c->bars[i].value > hi) hi = c->bars[i].value;
  double h = 20 + c->n * BAR_ROW + 52;
  ui_box bx = {10, 12, BAR_W - 110, h - 52};
  ui_svg_begin(b, "chart-bars", BAR_W, h, c->summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, hi > 0 ? hi : 1, 5, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_PLAIN, c->value_title);
  for (int i = 0; i < c->n; i++) {
    double v = c->bars[i].value, y = bx.y0 + 8 + i * BAR_ROW;
    double w = isfinite(v) && v > 0 ? ui_box_x(&bx, &ax, v) - bx.x0 : 0;
    if (isfinite(v) && v > 0 && w < 2) w = 2; /* a tiny value stays visible: that is often the lesson */
    ui_buf_rawf(b, "<g class=\"c%d\"><text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\">", i % UI_CHART_TONES, bx.x0,
                y + 12);
    ui_buf_text(b, c->bars[i].label);
    ui_buf_rawf(b, "</text><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\"/>", bx.x0, y + 18, w);
    ui_buf_rawf(b, "<text class=\"bar-value\" x=\"%.1f\" y=\"%.1f\">", bx.x0 + w + 6, y + 31);
    ui_buf_text(b, isfinite(v) ? ui_fmt_value(v, c->unit, t) : "n/a");
    ui_buf_raw(b, "</text></g>");
  }
  ui_svg_end(b);
}

void ui_bars_sentence(char *out, size_t n, const char *lead, const ui_bar *bars, int nb, ui_unit unit) {
  char t[32];
  size_t at = 0;
  int w = snprintf(out, n, "%s: ", lead);
  at = w < 0 ? n : (size_t)w;
  for (int i = 0; i < nb && at < n; i++) {
    w = snprintf(out + at, n - at, "%s %s%s", bars[i].label,
                 isfinite(bars[i].value) ? ui_fmt_value(bars[i].value, unit, t) : "n/a", i + 1 < nb ? "; " : ".");
    at = w < 0 ? n : at + (size_t)w;
  }
}

void ui_chart_columns(ui_buf *b, const ui_column_chart *c) {
  ui_axis ay;
  double hi = 0, h = 358; /* 18 more than the plot needs: the highlight's label row */
  char t[32];
  for (int k = 0; k < c->n_cat; k++) {
    double sum = 0;
    for (int p = 0; p < c->n_parts; p++)
      if (k < c->parts[p].n && isfinite(c->parts[p].y[k]) && c->parts[p].y[k] > 0) sum += c->parts[p].y[k];
    if (sum > hi) hi = sum;
  }
  for (int i = 0; i < c->n_limits; i++)
    if (isfinite(c->limits[i].x) && c->limits[i].x > hi) hi = c->limits[i].x;
  ui_box bx = {72, 36, BAR_W - 14, h - 70}; /* 36 on top: the y title; below: ticks, title, highlight */
  ui_svg_begin(b, "chart-columns", BAR_W, h, c->summary);
  ui_axis_fit(&ay, UI_SCALE_LINEAR, 0, hi > 0 ? hi : 1, 6, true);
  ui_axis_y(b, &bx, &ay, UI_UNIT_PLAIN, c->y_title);
  double slot = (bx.x1 - bx.x0) / (c->n_cat > 0 ? c->n_cat : 1), w = slot * 0.62;
  for (int k = 0; k < c->n_cat; k++) {
    double x = bx.x0 + slot * k + (slot - w) / 2, base = 0;
    for (int p = 0; p < c->n_parts; p++) {
      double v = k < c->parts[p].n ? c->parts[p].y[k] : NAN;
      if (!isfinite(v) || v <= 0) continue;
      double y0 = ui_box_y(&bx, &ay, base), y1 = ui_box_y(&bx, &ay, base + v);
      ui_buf_rawf(b, "<rect class=\"bar c%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>", p % UI_CHART_TONES,
                  x, y1, w, y0 - y1 > 0.5 ? y0 - y1 : 0.5);
      ui_buf_text(b, c->categories[k]);
      ui_buf_raw(b, ": ");
      ui_buf_text(b, c->parts[p].label);
      ui_buf_raw(b, " ");
      ui_buf_text(b, ui_fmt_value(v, UI_UNIT_PLAIN, t));
      ui_buf_raw(b, "</title></rect>");
      base += v;
    }
    if (k == c->highlight) {
      double top = ui_box_y(&bx, &ay, base);
      ui_buf_rawf(b, "<rect class=\"pick\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x - 3, top - 3, w + 6,
                  bx.y1 - top + 3);
      /* Its label goes under the axis title, where no bar can cover it. */
      if (c->highlight_label) {
        double lw = ui_label_w(c->highlight_label, UI_FS_LABEL), lx = x + w / 2 - lw / 2;
        if (lx + lw > BAR_W - 4) lx = BAR_W - 4 - lw;
        if (lx < 4) lx = 4;
        ui_buf_rawf(b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\">", lx, bx.y1 + 60);
        ui_buf_text(b, c->highlight_label);
        ui_buf_raw(b, "</text>");
      }
    }
    if (c->n_cat > 8 && k % 2 != (c->n_cat - 1) % 2 && k != c->highlight) continue; /* every other label when crowded */
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + w / 2, bx.y1 + 18);
    ui_buf_text(b, c->categories[k]);
    ui_buf_raw(b, "</text>");
  }
  ui_buf_rawf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", bx.x0, bx.y1, bx.x1, bx.y1);
  if (c->x_title) {
    ui_buf_rawf(b, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (bx.x0 + bx.x1) / 2, bx.y1 + 40);
    ui_buf_text(b, c->x_title);
    ui_buf_raw(b, "</text>");
  }
  for (int i = 0; i < c->n_limits; i++) {
    double ly = ui_box_y(&bx, &ay, c->limits[i].x);
    if (!isfinite(ly)) continue;
    ui_buf_rawf(b, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", bx.x0, ly, bx.x1, ly);
    ui_buf_rawf(b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\">", bx.x0 + 6, ly - 6);
    ui_buf_text(b, c->limits[i].label);
    ui_buf_raw(b, "</text>");
  }
  ui_svg_end(b);
}

#define MAX_LANES 6

void ui_chart_timeline(ui_buf *b, const ui_timeline_chart *c) {
  const char *lanes[MAX_LANES];
  int n_lanes = 0;
  double end = 0;
  ui_axis ax;
  char t[32], t2[32];
  for (int i = 0; i < c->n; i++) {
    int l = 0;
    while (l < n_lanes && strcmp(lanes[l], c->spans[i].lane) != 0) l++;
    if (l == n_lanes && n_lanes < MAX_LANES) lanes[n_lanes++] = c->spans[i].lane;
    if (isfinite(c->spans[i].end_us) && c->spans[i].end_us > end) end = c->spans[i].end_us;
  }
  /* Room on top for every mark's label on up to two lines each. */
  double h = 40 + 34.0 * c->n_marks + n_lanes * 52 + 52;
  ui_box bx = {112, 20 + 34.0 * c->n_marks, BAR_W - 18, h - 52};
  ui_svg_begin(b, "chart-timeline", BAR_W, h, c->summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, end > 0 ? end : 1, 6, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_US, c->x_title ? c->x_title : "time since the first launch");
  for (int l = 0; l < n_lanes; l++) {
    double y = bx.y0 + 10 + l * 52;
    /* "GPU 0, stream 0" goes on two lines, so the label column stays narrow */
    const char *comma = strstr(lanes[l], ", ");
    ui_buf_rawf(b, "<text class=\"lane-label\" x=\"8\" y=\"%.1f\">", comma ? y + 13 : y + 22);
    if (comma) {
      char first[48];
      snprintf(first, sizeof first, "%.*s", (int)(comma - lanes[l]), lanes[l]);
      ui_buf_text(b, first);
      ui_buf_rawf(b, "<tspan x=\"8\" dy=\"17\">");
      ui_buf_text(b, comma + 2);
      ui_buf_raw(b, "</tspan>");
    } else {
      ui_buf_text(b, lanes[l]);
    }
    ui_buf_raw(b, "</text>");
    for (int i = 0; i < c->n; i++) {
      const ui_span *s = &c->spans[i];
      if (strcmp(s->lane, lanes[l]) != 0) continue;
      double x0 = ui_box_x(&bx, &ax, s->start_us), x1 = ui_box_x(&bx, &ax, s->end_us);
      if (!isfinite(x0) || !isfinite(x1)) continue;
      ui_buf_rawf(b, "<rect class=\"bar c%d%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"32\"><title>", l % UI_CHART_TONES,
                  s->wait ? " wait" : "", x0, y, x1 - x0 > 1.5 ? x1 - x0 : 1.5);
      ui_buf_text(b, s->label);
      ui_buf_raw(b, ": ");
      ui_buf_text(b, ui_fmt_value(s->start_us, UI_UNIT_US, t));
      ui_buf_raw(b, " to ");
      ui_buf_text(b, ui_fmt_value(s->end_us, UI_UNIT_US, t2));
      ui_buf_raw(b, "</title></rect>");
    }
    /* Names inside the spans wide enough to hold them (NVTX ranges, long
     * kernels, the waits); the rest are in the tooltips and the table. */
    double free_from = bx.x0;
    for (int i = 0; i < c->n; i++) {
      const ui_span *s = &c->spans[i];
      if (strcmp(s->lane, lanes[l]) != 0) continue;
      double x0 = ui_box_x(&bx, &ax, s->start_us), x1 = ui_box_x(&bx, &ax, s->end_us);
      if (!isfinite(x0) || !isfinite(x1) || x1 - x0 < ui_label_w(s->label, UI_FS_SPAN) + 8 || x0 < free_from) continue;
      ui_buf_rawf(b, "<text class=\"span-label%s\" x=\"%.1f\" y=\"%.1f\">", s->wait ? " on-wait" : "", x0 + 4, y + 21);
      ui_buf_text(b, s->label);
      ui_buf_raw(b, "</text>");
      free_from = x0 + 4 + ui_label_w(s->label, UI_FS_SPAN) + 4;
    }
  }
  const ui_box top = {bx.x0, 8, bx.x1, bx.y1}; /* marks reach up into the label rows */
  ui_chart_marks(b, &top, &bx, &ax, c->marks, c->n_marks);
  ui_svg_end(b);
}
