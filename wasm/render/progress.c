/* Progress: JSON in and out of localStorage, and its line in the nav.
 * Stored shape: {"read":["intro"],"attempts":2,"best":{…},"last":{…}} with
 * attempts as {"score","total","passed","offline","date"}. */
#include "progress.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "json_get.h"

static void parse_attempt(const cJSON *o, ui_attempt *a) {
  double score, total;
  const char *date = ui_json_str(o, "date");
  memset(a, 0, sizeof *a);
  if (!ui_json_num(o, "score", &score) || !ui_json_num(o, "total", &total)) return;
  if (!(total >= 1 && total <= 1000 && score >= 0 && score <= total)) return;
  a->set = true;
  a->score = (int)score;
  a->total = (int)total;
  a->passed = ui_json_bool(o, "passed") == 1;
  a->offline = ui_json_bool(o, "offline") == 1;
  if (date) snprintf(a->date, sizeof a->date, "%s", date);
}

void ui_progress_parse(const char *json, ui_progress *p) {
  const cJSON *s;
  double attempts;
  memset(p, 0, sizeof *p);
  cJSON *j = json ? lab_json_parse(json, strlen(json), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  cJSON_ArrayForEach(s, ui_json_arr(j, "read")) {
    if (cJSON_IsString(s) && ui_id_valid(s->valuestring)) ui_progress_mark_read(p, s->valuestring);
  }
  if (ui_json_num(j, "attempts", &attempts) && attempts >= 0 && attempts < 1e6) p->attempts = (int)attempts;
  parse_attempt(ui_json_obj(j, "best"), &p->best);
  parse_attempt(ui_json_obj(j, "last"), &p->last);
  cJSON_Delete(j);
}

static cJSON *attempt_json(const ui_attempt *a) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddNumberToObject(o, "score", a->score);
  cJSON_AddNumberToObject(o, "total", a->total);
  cJSON_AddBoolToObject(o, "passed", a->passed);
  cJSON_AddBoolToObject(o, "offline", a->offline);
  cJSON_AddStringToObject(o, "date", a->date);
  return o;
}

char *ui_progress_json(const ui_progress *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON *read = cJSON_AddArrayToObject(o, "read");
  char *text = NULL;
  if (!read) goto end;
  for (int i = 0; i < p->n_read; i++) cJSON_AddItemToArray(read, cJSON_CreateString(p->read[i]));
  cJSON_AddNumberToObject(o, "attempts", p->attempts);
  if (p->best.set) cJSON_AddItemToObject(o, "best", attempt_json(&p->best));
  if (p->last.set) cJSON_AddItemToObject(o, "last", attempt_json(&p->last));
  text = cJSON_PrintUnformatted(o);
end:
  cJSON_Delete(o);
  return text;
}

bool ui_progress_is_read(const ui_progress *p, const char *section_id) {
  for (int i = 0; i < p->n_read; i++)
    if (section_id && strcmp(p->read[i], section_id) == 0) return true;
  return false;
}

bool ui_progress_mark_read(ui_progress *p, const char *section_id) {
  if (!ui_id_valid(section_id) || ui_progress_is_read(p, section_id) || p->n_read >= UI_PROGRESS_SECTIONS)
    return false;
  snprintf(p->read[p->n_read++], UI_ID_MAX, "%s", section_id);
  return true;
}

void ui_progress_record(ui_progress *p, const ui_attempt *a) {
  if (!a->set) return;
  p->attempts++;
  p->last = *a;
  /* Compare as fractions, in case the quiz changed length between attempts. */
  if (!p->best.set || (double)a->score / a->total > (double)p->best.score / p->best.total) p->best = *a;
}

int ui_progress_read_count(const ui_progress *p, const cJSON *bundle, int *total) {
  const cJSON *s;
  int n = 0, read = 0;
  cJSON_ArrayForEach(s, ui_json_arr(bundle, "sections")) {
    const char *sid = ui_json_str(s, "id");
    if (!ui_id_valid(sid)) continue;
    n++;
    read += ui_progress_is_read(p, sid);
  }
  if (total) *total = n;
  return read;
}

const char *ui_progress_quiz_text(const ui_progress *p, char *out, int n) {
  if (!p->best.set) snprintf(out, (size_t)n, "Quiz: not taken yet");
  else if (p->best.passed) snprintf(out, (size_t)n, "Quiz: passed %d/%d", p->best.score, p->best.total);
  else snprintf(out, (size_t)n, "Quiz: best %d/%d, not passed yet", p->best.score, p->best.total);
  return out;
}

void ui_render_progress_nav(ui_buf *b, const ui_progress *p, const cJSON *bundle) {
  const char *id = ui_json_str(bundle, "id");
  char quiz[64];
  int total = 0, read;
  if (!ui_id_valid(id)) return;
  read = ui_progress_read_count(p, bundle, &total);
  ui_progress_quiz_text(p, quiz, sizeof quiz);
  ui_buf_rawf(b, "<h2 class=\"nav-heading\">Your progress</h2><p class=\"nav-progress-line\"><span class=\"progress-meter\" aria-hidden=\"true\">"
                 "<span class=\"progress-fill progress-%d\"></span></span>%d of %d sections read</p>",
              total ? (read * 10 + total / 2) / total * 10 : 0, read, total);
  ui_buf_rawf(b, "<p class=\"nav-progress-line nav-quiz%s\"><a href=\"#lesson/%s/quiz\">", p->best.passed ? " is-passed" : "",
              id);
  ui_buf_text(b, quiz);
  ui_buf_raw(b, "</a></p>");
  if (p->last.set && p->attempts > 1)
    ui_buf_rawf(b, "<p class=\"nav-progress-sub\">Last attempt: %d/%d%s</p>", p->last.score, p->last.total,
                p->last.offline ? " (scored offline)" : "");
  ui_buf_rawf(b, "<p class=\"nav-progress-line\"><a href=\"#lesson/%s/report\">Download your lab report</a></p>",
              id);
}
