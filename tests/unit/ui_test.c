/* Markup checks shared by the UI suites (see ui_test.h). */
#include "ui_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *test_ui_markup_problem(const char *s) {
  static char why[160];
  char stack[64][24];
  int depth = 0;
  for (const char *p = s; *p; p++) {
    if (*p == '&') {
      const char *semi = strchr(p, ';');
      if (!semi || semi - p > 8) return "a raw '&'";
      continue;
    }
    if (*p == '>') return "a raw '>' in text";
    if (*p != '<') continue;
    bool closing = p[1] == '/';
    const char *name = p + (closing ? 2 : 1);
    size_t n = strcspn(name, " />");
    const char *end = name + n;
    bool quoted = false;
    while (*end && (quoted || *end != '>')) {
      if (*end == '"') quoted = !quoted;
      if (*end == '<' && !quoted) return "a '<' inside a tag";
      end++;
    }
    if (!*end) return "an unclosed tag";
    bool self = end[-1] == '/';
    static const char *const voids[] = {"input", "br", "meta", "img", "hr", NULL};
    for (int i = 0; voids[i]; i++)
      if (strlen(voids[i]) == n && strncmp(name, voids[i], n) == 0) self = true;
    if (closing) {
      if (depth == 0 || strlen(stack[depth - 1]) != n || strncmp(stack[depth - 1], name, n) != 0) {
        snprintf(why, sizeof why, "</%.*s> closes <%s>", (int)n, name, depth ? stack[depth - 1] : "nothing");
        return why;
      }
      depth--;
    } else if (!self) {
      if (depth == 64 || n >= 24) return "nesting too deep";
      snprintf(stack[depth++], 24, "%.*s", (int)n, name);
    }
    p = end;
  }
  if (depth) {
    snprintf(why, sizeof why, "<%s> never closed", stack[depth - 1]);
    return why;
  }
  return NULL;
}

int test_ui_count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* ---- SVG label boxes ------------------------------------------------------ */

/* The font size (CSS px = SVG units) web/style.css gives a chart text of
 * this class, at a page this wide (the phone rules apply up to 640 px). */
static double font_px(const char *cls, int width) {
  bool phone = width <= 640;
  if (strstr(cls, "tick")) return phone ? 15 : 13;
  if (strstr(cls, "span-label")) return phone ? 13 : 12;
  if (strstr(cls, "bar-value") || strstr(cls, "mark-label")) return phone ? 16 : 13;
  return phone ? 16 : 14; /* axis-title, lane-label, bar-label, tensor text */
}

/* Code points of text up to '<', an entity counting as one. */
static int glyphs(const char *s) {
  int n = 0;
  for (; *s && *s != '<'; s++) {
    if (*s == '&') s = strchr(s, ';') ? strchr(s, ';') : s;
    if (((unsigned char)*s & 0xC0) != 0x80) n++;
  }
  return n;
}

static double attr(const char *tag, const char *end, const char *name, double def) {
  char key[24];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(tag, key);
  return p && p < end ? strtod(p + strlen(key), NULL) : def;
}

typedef struct {
  double x0, y0, x1, y1;
  char text[48];
} box;

const char *test_ui_svg_label_problem(const char *html, int width) {
  static char why[256];
  for (const char *svg = strstr(html, "<svg"); svg; svg = strstr(svg + 4, "<svg")) {
    const char *svg_end = strstr(svg, "</svg>");
    const char *vb = strstr(svg, "viewBox=\"0 0 ");
    if (!svg_end || !vb) continue;
    double vw = strtod(vb + 13, NULL), vh = strtod(strchr(vb + 13, ' ') + 1, NULL);
    box boxes[256], bars[512];
    int n = 0, nb = 0;
    /* Bars (timeline spans, bar charts) a label must not sit under. */
    for (const char *r = strstr(svg, "<rect class=\"bar"); r && r < svg_end && nb < 512;
         r = strstr(r + 5, "<rect class=\"bar")) {
      const char *gt = strchr(r, '>');
      double x = attr(r, gt, "x", 0), y = attr(r, gt, "y", 0);
      bars[nb++] = (box){x, y, x + attr(r, gt, "width", 0), y + attr(r, gt, "height", 0), "a bar"};
    }
    for (const char *t = strstr(svg, "<text"); t && t < svg_end && n < 256; t = strstr(t + 5, "<text")) {
      const char *gt = strchr(t, '>');
      const char *cls = strstr(t, "class=\"");
      char c[48] = "";
      if (cls && cls < gt) snprintf(c, sizeof c, "%.*s", (int)strcspn(cls + 7, "\""), cls + 7);
      double fs = font_px(c, width), x = attr(t, gt, "x", 0), y = attr(t, gt, "y", 0);
      double w = glyphs(gt + 1) * fs * 0.6;
      const char *anchor = strstr(t, "text-anchor=\"");
      if (anchor && anchor < gt && !strncmp(anchor + 13, "end", 3)) x -= w;
      else if (anchor && anchor < gt && !strncmp(anchor + 13, "middle", 6)) x -= w / 2;
      box bx = {x, y - fs * 0.78, x + w, y + fs * 0.22, ""};
      const char *rot = strstr(t, "rotate(-90)");
      if (rot && rot < gt) /* a y-axis title: (x, y) are in the rotated frame */
        bx = (box){y - fs * 0.78, -(x + w), y + fs * 0.22, -x, ""};
      snprintf(bx.text, sizeof bx.text, "%.*s", (int)strcspn(gt + 1, "<"), gt + 1);
      if (bx.x0 < -1 || bx.x1 > vw + 1 || bx.y0 < -1 || bx.y1 > vh + 1) {
        snprintf(why, sizeof why, "at %d px, \"%s\" (%.0f..%.0f) leaves the %.0f-wide chart", width, bx.text, bx.x0,
                 bx.x1, vw);
        if (getenv("UI_LABELS_ALL")) { fprintf(stderr, "%s\n", why); continue; }
        return why;
      }
      for (int i = 0; i < nb && !strstr(c, "span-label"); i++) { /* a span's name sits on its span */
        const box *o = &bars[i];
        if (bx.x0 < o->x1 - 1 && o->x0 < bx.x1 - 1 && bx.y0 < o->y1 - 1 && o->y0 < bx.y1 - 1) {
          snprintf(why, sizeof why, "at %d px, \"%s\" runs under a bar", width, bx.text);
          if (getenv("UI_LABELS_ALL")) { fprintf(stderr, "%s\n", why); break; }
          return why;
        }
      }
      /* A mark's line must not run through a label ("synchronize() called"
       * struck through by the line of "the GPU is done"). */
      for (const char *l = strstr(svg, "<line class=\"mark\""); l && l < svg_end; l = strstr(l + 5, "<line class=\"mark\"")) {
        const char *lgt = strchr(l, '>');
        double lx = attr(l, lgt, "x1", 0), ly0 = attr(l, lgt, "y1", 0), ly1 = attr(l, lgt, "y2", 0);
        if (lx > bx.x0 + 1 && lx < bx.x1 - 1 && fmin(ly0, ly1) < bx.y1 - 1 && fmax(ly0, ly1) > bx.y0 + 1) {
          snprintf(why, sizeof why, "at %d px, a mark's line at x = %.0f runs through \"%s\"", width, lx, bx.text);
          if (getenv("UI_LABELS_ALL")) { fprintf(stderr, "%s\n", why); break; }
          return why;
        }
      }
      for (int i = 0; i < n; i++) {
        const box *o = &boxes[i];
        if (bx.x0 < o->x1 - 1 && o->x0 < bx.x1 - 1 && bx.y0 < o->y1 - 1 && o->y0 < bx.y1 - 1) {
          snprintf(why, sizeof why, "at %d px, \"%s\" overlaps \"%s\"", width, bx.text, o->text);
          if (getenv("UI_LABELS_ALL")) { fprintf(stderr, "%s\n", why); break; }
          return why;
        }
      }
      boxes[n++] = bx;
    }
  }
  return NULL;
}
