/* Renders the lesson list and a lesson. Ids are checked with ui_id_valid
 * before they become links or element ids; titles and summaries are
 * escaped; only the compiled section html is trusted. */
#include "lesson_html.h"

#include <string.h>

#include "json_get.h"
#include "route.h"

bool ui_lesson_index_valid(const cJSON *index) { return ui_json_arr(index, "lessons") != NULL; }

bool ui_lesson_bundle_valid(const cJSON *bundle) {
  return ui_id_valid(ui_json_str(bundle, "id")) && ui_json_str(bundle, "title") && ui_json_arr(bundle, "sections");
}

const char *ui_lesson_first_id(const cJSON *index) {
  const cJSON *l;
  cJSON_ArrayForEach(l, ui_json_arr(index, "lessons")) {
    if (ui_id_valid(ui_json_str(l, "id"))) return ui_json_str(l, "id");
  }
  return NULL;
}

bool ui_lesson_listed(const cJSON *index, const char *id) {
  const cJSON *l;
  cJSON_ArrayForEach(l, ui_json_arr(index, "lessons")) {
    const char *lid = ui_json_str(l, "id");
    if (lid && id && ui_id_valid(lid) && strcmp(lid, id) == 0) return true;
  }
  return false;
}

static void section_links(ui_buf *b, const char *lesson_id, const cJSON *bundle) {
  const cJSON *s;
  ui_buf_raw(b, "<ol class=\"nav-sections\">");
  cJSON_ArrayForEach(s, ui_json_arr(bundle, "sections")) {
    const char *sid = ui_json_str(s, "id");
    if (!ui_id_valid(sid)) continue;
    ui_buf_rawf(b, "<li><a href=\"#lesson/%s/%s\">", lesson_id, sid);
    ui_buf_text(b, ui_json_str(s, "title") ? ui_json_str(s, "title") : sid);
    ui_buf_raw(b, "</a></li>");
  }
  ui_buf_raw(b, "</ol>");
}

void ui_render_lesson_nav(ui_buf *b, const cJSON *index, const char *current_id, const cJSON *bundle) {
  const cJSON *l;
  int shown = 0;
  if (!index) {
    ui_buf_raw(b, "<p class=\"muted\">Loading lessons…</p>");
    return;
  }
  ui_buf_raw(b, "<ol class=\"nav-lessons\">");
  cJSON_ArrayForEach(l, ui_json_arr(index, "lessons")) {
    const char *id = ui_json_str(l, "id");
    if (!ui_id_valid(id)) continue;
    bool current = current_id && strcmp(id, current_id) == 0;
    shown++;
    ui_buf_rawf(b, "<li class=\"nav-lesson%s\"><a href=\"#lesson/%s\"%s><span class=\"nav-num\">%d</span>"
                   "<span class=\"nav-title\">",
                current ? " is-current" : "", id, current ? " aria-current=\"page\"" : "", shown);
    ui_buf_text(b, ui_json_str(l, "title") ? ui_json_str(l, "title") : id);
    ui_buf_raw(b, "</span></a>");
    if (current && ui_lesson_bundle_valid(bundle) && strcmp(ui_json_str(bundle, "id"), id) == 0)
      section_links(b, id, bundle);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ol>");
  if (shown == 0) ui_buf_raw(b, "<p class=\"muted\">No lessons are installed on this server yet.</p>");
}

void ui_render_nav_pages(ui_buf *b, const ui_nav_link *links, int n) {
  for (int i = 0; i < n; i++) {
    if (!ui_id_valid(links[i].hash)) continue; /* it becomes an href */
    ui_buf_rawf(b, "<p class=\"nav-lab\"><a href=\"#%s\">", links[i].hash);
    ui_buf_text(b, links[i].label);
    ui_buf_raw(b, "</a> — ");
    ui_buf_text(b, links[i].note);
    ui_buf_raw(b, "</p>");
  }
}

void ui_render_lesson_link(ui_buf *b, const cJSON *lesson) {
  ui_buf_raw(b, "<a class=\"explain-lesson\" href=\"");
  ui_buf_text(b, ui_json_str(lesson, "href") ? ui_json_str(lesson, "href") : "");
  const char *title = ui_json_str(lesson, "title"); /* an older server's answer has only the id */
  ui_buf_raw(b, title ? "\">Read in the lesson: " : "\">Read the lesson section: ");
  ui_buf_text(b, title ? title : ui_json_str(lesson, "section") ? ui_json_str(lesson, "section") : "");
  ui_buf_raw(b, "</a> ");
}

void ui_render_lesson(ui_buf *b, const cJSON *bundle) {
  if (!ui_lesson_bundle_valid(bundle)) {
    ui_render_lesson_message(b, "This lesson could not be read",
                           "The lesson file is incomplete (it needs an id, a title and sections). Rebuild the lessons "
                           "with 'make lessons' and reload the page.");
    return;
  }
  ui_render_lesson_head(b, bundle);
  ui_render_lesson_sections(b, bundle, 0, -1);
}

void ui_render_lesson_head(ui_buf *b, const cJSON *bundle) {
  ui_buf_raw(b, "<header class=\"lesson-head\"><p class=\"kicker\">Lesson</p>"
                "<h1 id=\"lesson-title\" tabindex=\"-1\">");
  ui_buf_text(b, ui_json_str(bundle, "title"));
  ui_buf_raw(b, "</h1>");
  if (ui_json_str(bundle, "summary")) {
    ui_buf_raw(b, "<p class=\"lede\">");
    ui_buf_text(b, ui_json_str(bundle, "summary"));
    ui_buf_raw(b, "</p>");
  }
  /* a learner's own error or profile, one tap from any lesson: on a phone
   * the contents menu that also lists them starts closed */
  ui_buf_raw(b, "<p class=\"lesson-tools\"><a class=\"button button-quiet\" href=\"#explain\">Paste your error</a>"
                "<a class=\"button button-quiet\" href=\"#doctor\">Read your profile</a></p></header>");
}

void ui_render_lesson_sections(ui_buf *b, const cJSON *bundle, int from, int count) {
  const cJSON *s;
  int i = 0;
  cJSON_ArrayForEach(s, ui_json_arr(bundle, "sections")) {
    const char *sid = ui_json_str(s, "id");
    if (i++ < from) continue;
    if (count >= 0 && i > from + count) break;
    if (!ui_id_valid(sid)) continue;
    ui_buf_rawf(b, "<section class=\"lesson-section\" id=\"sec-%s\" tabindex=\"-1\" aria-labelledby=\"sec-%s-h\">"
                   "<h2 id=\"sec-%s-h\">",
                sid, sid, sid);
    ui_buf_text(b, ui_json_str(s, "title") ? ui_json_str(s, "title") : sid);
    ui_buf_raw(b, "</h2><div class=\"prose\">");
    /* trusted: compiled from Markdown with raw HTML disabled; each code block
     * after a copy button, which the bridge answers (the next <pre>'s text) */
    const char *h = ui_json_str(s, "html"), *pre;
    for (; h && (pre = strstr(h, "<pre")); h = pre) {
      ui_buf_rawf(b, "%.*s<button type=\"button\" class=\"button button-quiet\" data-action=\"copy\">Copy</button>",
                  (int)(pre - h), h);
      ui_buf_raw(b, "<pre");
      pre += 4;
    }
    ui_buf_raw(b, h);
    ui_buf_raw(b, "</div></section>");
  }
}

void ui_render_lesson_message(ui_buf *b, const char *title, const char *text) {
  ui_buf_raw(b, "<div class=\"lesson-message\"><h1 id=\"lesson-title\" tabindex=\"-1\">");
  ui_buf_text(b, title);
  ui_buf_raw(b, "</h1><p>");
  ui_buf_text(b, text);
  ui_buf_raw(b, "</p></div>");
}
