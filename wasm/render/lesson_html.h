/* Lesson navigation and the lesson reader. The index and bundles come from
 * GET /api/lessons[/ID] (or the static lessons/ID.json); section html was
 * produced at build time by the lesson compiler and is inserted as is. */
#ifndef UI_LESSON_HTML_H
#define UI_LESSON_HTML_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "html.h"

/* true when index looks like {"lessons":[…]}. */
bool ui_lesson_index_valid(const cJSON *index);
/* true when bundle has a valid id, a title and a "sections" array. */
bool ui_lesson_bundle_valid(const cJSON *bundle);
/* The id of the first listed lesson with a valid id, or NULL. */
const char *ui_lesson_first_id(const cJSON *index);
/* true when index lists a lesson with this id. */
bool ui_lesson_listed(const cJSON *index, const char *id);

/* The lesson list; the current lesson lists its sections when its bundle is
 * loaded. index may be NULL (still loading) — then a loading line. */
void ui_render_lesson_nav(ui_buf *b, const cJSON *index, const char *current_id, const cJSON *bundle);
/* A link of the navigation to a page that takes the lesson's place
 * ("#lab": "All experiments", then "run any of them on its own"). */
typedef struct ui_nav_link {
  const char *hash, *label, *note;
} ui_nav_link;
/* The links to those pages, under the lesson list. */
void ui_render_nav_pages(ui_buf *b, const ui_nav_link *links, int n);
/* "Read in the lesson: TITLE" (the section's id where the answer has no title), linked to an answer's lesson object's
 * href (an explained error's or a read trace's finding), and a space. */
void ui_render_lesson_link(ui_buf *b, const cJSON *lesson);
/* The lesson: title, summary, then every section with its html. */
void ui_render_lesson(ui_buf *b, const cJSON *bundle);
/* Its parts, for a lesson drawn in two steps: the title and summary (the
 * bundle already checked with ui_lesson_bundle_valid), and count sections
 * from the from-th (0-based; count -1: to the end). */
void ui_render_lesson_head(ui_buf *b, const cJSON *bundle);
void ui_render_lesson_sections(ui_buf *b, const cJSON *bundle, int from, int count);
/* A message in the lesson area (not found, could not load…). */
void ui_render_lesson_message(ui_buf *b, const char *title, const char *text);

#endif
