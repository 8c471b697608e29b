/* A learner's progress in one lesson, kept in localStorage as JSON under
 * "gpulab.progress.LESSON": the sections read, the quiz's best and last
 * attempt. Parsing forgives anything (storage is outside our control);
 * the nav line says it in words ("1 of 2 sections read · Quiz: passed 8/9"). */
#ifndef UI_PROGRESS_H
#define UI_PROGRESS_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "html.h"
#include "route.h"

#define UI_PROGRESS_SECTIONS 32 /* more than any lesson has; extra ids are not kept */

typedef struct ui_attempt {
  bool set;
  int score, total;
  bool passed, offline; /* offline: scored in the browser with the offline key */
  char date[24];        /* "2026-11-22 15:04 UTC" */
} ui_attempt;

typedef struct ui_progress {
  char read[UI_PROGRESS_SECTIONS][UI_ID_MAX]; /* section ids visited */
  int n_read;
  int attempts;    /* quiz attempts submitted */
  ui_attempt best; /* highest score; the earlier one on a tie */
  ui_attempt last;
} ui_progress;

/* Fills p from stored JSON (NULL, junk or a wrong shape gives an empty p). */
void ui_progress_parse(const char *json, ui_progress *p);
/* The JSON to store; caller frees with cJSON_free. NULL on out-of-memory. */
char *ui_progress_json(const ui_progress *p);
/* Marks a section read; true when it was not read before. */
bool ui_progress_mark_read(ui_progress *p, const char *section_id);
bool ui_progress_is_read(const ui_progress *p, const char *section_id);
/* Records an attempt as last, and as best when it scored higher. */
void ui_progress_record(ui_progress *p, const ui_attempt *a);
/* How many of the bundle's sections are read, and how many it has. */
int ui_progress_read_count(const ui_progress *p, const cJSON *bundle, int *total);

/* "Quiz: passed 8/9" / "Quiz: best 6/9, not passed yet" / "Quiz: not taken yet". */
const char *ui_progress_quiz_text(const ui_progress *p, char *out, int n);
/* The content of the nav's progress block (the caller gives the element),
 * with links to the quiz and the lab report. */
void ui_render_progress_nav(ui_buf *b, const ui_progress *p, const cJSON *bundle);

#endif
