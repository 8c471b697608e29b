/* lesson.md to JSON: "# Title", a summary paragraph, then sections opened by
 * "## Section title {#section-id}". A line "::: experiment NAME" places a
 * live experiment; "::: fold SUMMARY" … ":::" folds text away (<details>),
 * and the words shown outside folds are counted against LESSON_WORDS_MAX.
 * Structure is found line by line (outside fenced code);
 * each run of Markdown between structure lines is rendered by md4c with raw
 * HTML off, so a lesson cannot inject markup. Format: lessons/README.md. */
#include <ctype.h>
#include <md4c-html.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cjson_compat.h"
#include "lesson.h"
#include "registry.h"

#define MD_FLAGS (MD_FLAG_NOHTML | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH)
#define ID_MAX 48
/* Reports an error at a line of this lesson and counts it. */
#define FAIL(c, line, ...) ((c)->errors++, lesson_report((c)->path, (line), __VA_ARGS__))

typedef lesson_buf buf;

typedef struct {
  const char *path;
  int errors;
  buf chunk;       /* Markdown of the current section since its last directive */
  buf html;        /* the current section's HTML so far */
  cJSON *sections; /* finished sections */
  cJSON *sec;      /* the current section, NULL before the first */
  int sec_line;
  bool sec_has_text;
  int fold_line;     /* the line of the open "::: fold", 0 when none is open */
  bool fold_has_text;
  size_t words;     /* shown before any fold is opened, the whole lesson */
  size_t sec_words; /* the same, the current section */
} ctx;

void lesson_buf_put(buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

/* md4c's HTML, with code blocks made focusable: they scroll sideways, and
 * a region that scrolls must be reachable from the keyboard to be read
 * (tables: lesson_table.c). */
static void md_out(const MD_CHAR *s, MD_SIZE n, void *user) {
  static const char pre[] = "<pre>", focusable[] = "<pre tabindex=\"0\">";
  if (n >= 5 && memcmp(s, pre, 5) == 0) {
    lesson_buf_put(user, focusable, strlen(focusable));
    s += 5;
    n -= 5;
  }
  lesson_buf_put(user, s, n);
}

static bool is_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)s[i])) return false;
  return true;
}

static void trim(const char **s, size_t *n) {
  while (*n && isspace((unsigned char)**s)) (*s)++, (*n)--;
  while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

static bool valid_name(const char *s, size_t n, bool underscore) {
  if (n == 0 || n > ID_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || (underscore && s[i] == '_')))
      return false;
  return true;
}

/* A fence is 3+ backticks or tildes after at most 3 spaces (CommonMark).
 * Returns its length, 0 if the line is not one; *ch gets the character. */
static size_t fence_len(const char *s, size_t n, char *ch) {
  size_t i = 0;
  while (i < n && i < 3 && s[i] == ' ') i++;
  if (i >= n || (s[i] != '`' && s[i] != '~')) return 0;
  size_t k = i;
  while (k < n && s[k] == s[i]) k++;
  if (k - i < 3) return 0;
  *ch = s[i];
  return k - i;
}

/* A paragraph that is one link to a page of the app ("[Paste your error](#explain)"
 * on its own) is shown as a button a thumb finds, not a word in the prose. */
static void app_buttons(buf *b, size_t from) {
  static const char para[] = "<p><a href=\"#", button[] = "<p class=\"go\"><a class=\"button button-quiet\" href=\"#";
  for (char *p = strstr(b->s + from, para); p && !b->oom; p = strstr(p + 1, para)) {
    char *close = strstr(p, "</a>");
    char *other = strstr(p + strlen(para), "<a ");
    if (!close || strncmp(close, "</a></p>", 8) != 0 || (other && other < close)) continue;
    size_t at = (size_t)(p - b->s), k = strlen(para), extra = strlen(button) - k;
    lesson_buf_put(b, button, extra); /* grows the buffer; then the tail moves right */
    if (b->oom) return;
    p = b->s + at;
    memmove(p + k + extra, p + k, b->n - extra - at - k);
    memcpy(p, button, strlen(button));
  }
}

/* Renders the pending Markdown into the section's HTML. */
static void flush_chunk(ctx *c) {
  if (c->chunk.n == 0) return;
  size_t from = c->html.n;
  if (md_html(c->chunk.s, (MD_SIZE)c->chunk.n, md_out, &c->html, MD_FLAGS, 0) != 0) c->html.oom = true;
  if (!c->html.oom && c->html.n > from) app_buttons(&c->html, from);
  if (!c->html.oom && c->html.n > from && strstr(c->html.s + from, "<table>")) {
    lesson_buf r = {0};
    lesson_table_reflow(c->html.s + from, c->html.n - from, &r);
    c->html.n = from;
    if (r.oom) c->html.oom = true;
    else lesson_buf_put(&c->html, r.s, r.n);
    free(r.s);
  }
  if (!c->fold_line && !c->html.oom && c->html.n > from) /* html.s is NULL until something is rendered */
    c->sec_words += lesson_words(c->html.s + from, c->html.n - from, true);
  c->chunk.n = 0;
}

/* Puts text into the HTML with &, <, > and " escaped. */
static void put_escaped(buf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *e = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;" : s[i] == '>' ? "&gt;" : s[i] == '"' ? "&quot;" : NULL;
    if (e)
      lesson_buf_put(b, e, strlen(e));
    else
      lesson_buf_put(b, s + i, 1);
  }
}

/* Ends the open fold (a fold never spans sections). */
static void close_fold(ctx *c) {
  flush_chunk(c);
  if (!c->fold_has_text) FAIL(c, c->fold_line, "this fold is empty; put text or an experiment before its ':::'");
  lesson_buf_put(&c->html, "</details>\n", 11);
  c->fold_line = 0;
}

static void end_section(ctx *c) {
  if (!c->sec) return;
  flush_chunk(c);
  if (c->fold_line) {
    FAIL(c, c->fold_line, "this fold is never closed; end it with a line ':::' before the next section");
    close_fold(c);
  }
  c->words += c->sec_words;
  cJSON_AddNumberToObject(c->sec, "words", (double)c->sec_words);
  if (!c->sec_has_text && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c->sec, "experiments")) == 0)
    FAIL(c, c->sec_line, "section '%s' is empty; write its text below the heading",
         cJSON_GetObjectItemCaseSensitive(c->sec, "id")->valuestring);
  if (c->html.oom || !cJSON_AddStringToObject(c->sec, "html", c->html.s ? c->html.s : ""))
    FAIL(c, c->sec_line, "out of memory while rendering this section");
  c->html.n = 0;
  if (c->html.s) c->html.s[0] = '\0';
  c->sec = NULL;
}

/* "## Section title {#section-id}" */
static void start_section(ctx *c, const char *s, size_t n, int line) {
  end_section(c);
  c->sec = cJSON_CreateObject();
  cJSON_AddItemToArray(c->sections, c->sec);
  c->sec_line = line;
  c->sec_has_text = false;
  c->sec_words = 0;
  const char *t = s + 2;
  size_t tn = n - 2;
  trim(&t, &tn);
  const char *open = NULL;
  for (size_t i = 0; i + 1 < tn; i++)
    if (t[i] == '{' && t[i + 1] == '#') open = t + i;
  char id[ID_MAX + 1] = "";
  if (!open || t[tn - 1] != '}') {
    FAIL(c, line, "a section heading needs an id: write '## Title {#section-id}'");
  } else {
    const char *idp = open + 2;
    size_t idn = (size_t)(t + tn - 1 - idp);
    if (!valid_name(idp, idn, false))
      FAIL(c, line, "section id '%.*s' must be 1-48 characters of a-z, 0-9 and '-'", (int)idn, idp);
    else
      memcpy(id, idp, idn), id[idn] = '\0';
    tn = (size_t)(open - t);
    trim(&t, &tn);
  }
  if (tn == 0) FAIL(c, line, "this section has no title: write '## Title {#section-id}'");
  c->sec_words += lesson_words(t, tn, false);
  const cJSON *prev;
  cJSON_ArrayForEach(prev, c->sections) {
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(prev, "id");
    if (id[0] && prev != c->sec && strcmp(pid->valuestring, id) == 0)
      FAIL(c, line, "section id '%s' is used twice; ids must be unique", id);
  }
  char *title = strndup(t, tn);
  if (!title || !cJSON_AddStringToObject(c->sec, "id", id) || !cJSON_AddStringToObject(c->sec, "title", title) ||
      !cJSON_AddArrayToObject(c->sec, "experiments"))
    FAIL(c, line, "out of memory");
  free(title);
}

static void known_list(char *out, size_t cap) {
  out[0] = '\0';
  for (int i = 0; i < lab_experiment_count(); i++) {
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "%s%s", i ? ", " : "", lab_experiment_at(i)->name);
  }
}

/* "::: fold SUMMARY": what follows, up to a line ":::", is shown only when
 * the learner opens it; SUMMARY (plain text) is what they see and click. */
static void open_fold(ctx *c, const char *t, size_t tn, int line) {
  trim(&t, &tn);
  if (!c->sec) {
    FAIL(c, line, "a fold must be inside a section ('## Title {#id}' above it)");
    return;
  }
  if (c->fold_line) {
    FAIL(c, line, "folds do not nest; end the fold opened at line %d with ':::' first", c->fold_line);
    return;
  }
  if (tn == 0) {
    FAIL(c, line, "write what the fold holds after it, e.g. '::: fold How it was measured'");
    return;
  }
  flush_chunk(c);
  lesson_buf_put(&c->html, "<details class=\"fold\"><summary>", strlen("<details class=\"fold\"><summary>"));
  put_escaped(&c->html, t, tn);
  lesson_buf_put(&c->html, "</summary>\n", 11);
  c->sec_words += lesson_words(t, tn, false);
  c->sec_has_text = true;
  c->fold_line = line;
  c->fold_has_text = false;
}

static bool directive_is(const char *t, size_t tn, const char *word) {
  size_t k = strlen(word);
  return tn >= k && strncmp(t, word, k) == 0 && (tn == k || t[k] == ' ' || t[k] == '\t');
}

/* "::: experiment NAME", "::: fold SUMMARY" and ":::" (ends a fold). */
static void directive(ctx *c, const char *s, size_t n, int line) {
  const char *t = s + 3;
  size_t tn = n - 3;
  trim(&t, &tn);
  if (tn == 0) {
    if (c->fold_line)
      close_fold(c);
    else
      FAIL(c, line, "':::' ends a fold, but no fold is open here; open one with '::: fold SUMMARY'");
    return;
  }
  if (directive_is(t, tn, "fold")) {
    open_fold(c, t + 4, tn - 4, line);
    return;
  }
  if (!directive_is(t, tn, "experiment")) {
    FAIL(c, line,
         "unknown directive '%.*s'; the directives are '::: experiment NAME', '::: fold SUMMARY' and ':::' (ends a "
         "fold)",
         (int)(n > 60 ? 60 : n), s);
    return;
  }
  const char *name = t + 10;
  size_t nn = tn - 10;
  trim(&name, &nn);
  if (nn == 0 || !valid_name(name, nn, true)) {
    FAIL(c, line, "write '::: experiment NAME' with one name, e.g. '::: experiment device'");
    return;
  }
  char nm[ID_MAX + 1];
  memcpy(nm, name, nn);
  nm[nn] = '\0';
  if (!lab_experiment_find(nm)) {
    char known[256];
    known_list(known, sizeof known);
    FAIL(c, line, "unknown experiment '%s'; the known ones are: %s", nm, known);
    return;
  }
  if (!c->sec) {
    FAIL(c, line, "an experiment must be inside a section ('## Title {#id}' above it)");
    return;
  }
  flush_chunk(c);
  c->fold_has_text = true;
  char div[128];
  int dn = snprintf(div, sizeof div, "<div class=\"experiment\" data-experiment=\"%s\"></div>\n", nm);
  lesson_buf_put(&c->html, div, (size_t)dn);
  cJSON *exps = cJSON_GetObjectItemCaseSensitive(c->sec, "experiments");
  const cJSON *e;
  cJSON_ArrayForEach(e, exps) {
    if (strcmp(e->valuestring, nm) == 0) return; /* listed once, placed as often as written */
  }
  cJSON_AddItemToArray(exps, cJSON_CreateString(nm));
}

/* Lines must be valid UTF-8 without NUL bytes: the JSON we write is UTF-8. */
static int check_text(const char *path, const char *s, size_t len) {
  int line = 1;
  for (size_t i = 0; i < len;) {
    unsigned char b = (unsigned char)s[i];
    size_t k = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (b == 0) return lesson_report(path, line, "the file contains a NUL byte; save it as UTF-8 text");
    if (k == 0 || i + k > len) return lesson_report(path, line, "this line is not valid UTF-8; save the file as UTF-8");
    for (size_t j = 1; j < k; j++)
      if (((unsigned char)s[i + j] >> 6) != 2)
        return lesson_report(path, line, "this line is not valid UTF-8; save the file as UTF-8");
    line += b == '\n';
    i += k;
  }
  return 0;
}

/* If s starts with "scheme:", returns whether that scheme may be linked to.
 * The page shows lesson HTML as is, so a javascript: (or data:, vbscript:)
 * link would run code; only web, mail and relative addresses are allowed. */
static bool allowed_target(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '<')) s++;
  const char *p = s;
  if (p >= end || !isalpha((unsigned char)*p)) return true;
  while (p < end && (isalnum((unsigned char)*p) || *p == '+' || *p == '.' || *p == '-')) p++;
  if (p >= end || *p != ':') return true; /* no scheme: a relative address or plain text */
  size_t n = (size_t)(p - s);
  return (n == 4 && strncasecmp(s, "http", 4) == 0) || (n == 5 && strncasecmp(s, "https", 5) == 0) ||
         (n == 6 && strncasecmp(s, "mailto", 6) == 0);
}

/* Link targets: "](target", "<scheme:…>" autolinks and "[label]: target" definitions. */
static bool links_ok(const char *s, size_t n) {
  const char *end = s + n;
  for (const char *p = s; p < end; p++) {
    if (p + 1 < end && p[0] == ']' && p[1] == '(' && !allowed_target(p + 2, end)) return false;
    if (p[0] == ']' && p + 1 < end && p[1] == ':' && !allowed_target(p + 2, end)) return false;
    if (p[0] == '<' && p + 1 < end && isalpha((unsigned char)p[1]) && !allowed_target(p + 1, end)) return false;
  }
  return true;
}

/* One line of a section (or of the part before the first one). */
static void body_line(ctx *c, const char *s, size_t n, int line) {
  size_t h = 0;
  while (h < n && s[h] == '#') h++;
  bool heading = h > 0 && (h == n || s[h] == ' ' || s[h] == '\t');
  if (h == 1 && heading) {
    FAIL(c, line, "only the lesson title uses '# '; start a section with '## Title {#id}'");
  } else if (h == 2) {
    if (heading)
      start_section(c, s, n, line);
    else
      FAIL(c, line, "put a space after '##': '## Title {#section-id}'");
  } else if (n >= 3 && strncmp(s, ":::", 3) == 0) {
    directive(c, s, n, line);
  } else if (!c->sec) {
    if (!is_blank(s, n)) FAIL(c, line, "text after the summary must be in a section: add '## Title {#id}' above it");
  } else {
    if (!links_ok(s, n)) FAIL(c, line, "links may point only to http:, https:, mailto: or relative addresses");
    c->sec_has_text = c->sec_has_text || !is_blank(s, n);
    c->fold_has_text = c->fold_has_text || (c->fold_line && !is_blank(s, n));
    lesson_buf_put(&c->chunk, s, n);
    lesson_buf_put(&c->chunk, "\n", 1);
  }
}

typedef struct {
  const char *s;
  size_t n; /* without the line ending */
} line_t;

/* The title line, the summary paragraph; returns the index of the next line or -1. */
static int head(ctx *c, const line_t *ls, int nlines, cJSON *out) {
  int i = 0;
  while (i < nlines && is_blank(ls[i].s, ls[i].n)) i++;
  if (i == nlines) return lesson_report(c->path, nlines ? nlines : 1, "the lesson is empty; start it with '# Title'");
  const char *s = ls[i].s;
  size_t n = ls[i].n;
  trim(&s, &n);
  if (n < 2 || s[0] != '#' || s[1] != ' ' || is_blank(s + 2, n - 2))
    return lesson_report(c->path, i + 1, "a lesson starts with its title: '# Title'");
  s += 2, n -= 2;
  trim(&s, &n);
  char *title = strndup(s, n);
  bool ok = title && cJSON_AddStringToObject(out, "title", title);
  c->words += lesson_words(s, n, false);
  free(title);
  for (i++; i < nlines && is_blank(ls[i].s, ls[i].n); i++) {
  }
  buf sum = {0};
  int first = i;
  for (char ch; i < nlines; i++) {
    const char *l = ls[i].s;
    size_t ln = ls[i].n;
    if (is_blank(l, ln) || l[0] == '#' || (ln >= 3 && strncmp(l, ":::", 3) == 0) || fence_len(l, ln, &ch)) break;
    trim(&l, &ln);
    if (sum.n) lesson_buf_put(&sum, " ", 1);
    lesson_buf_put(&sum, l, ln);
  }
  int rc = 0;
  c->words += lesson_words(sum.s, sum.n, false);
  if (sum.n == 0)
    rc = lesson_report(c->path, first < nlines ? first + 1 : nlines, "add a summary paragraph below the title");
  else if (!ok || sum.oom || !cJSON_AddStringToObject(out, "summary", sum.s))
    rc = lesson_report(c->path, first + 1, "out of memory");
  free(sum.s);
  return rc ? -1 : i;
}

/* Splits text into lines ("\n" or "\r\n"); *n gets their count. */
static line_t *split_lines(const char *text, size_t len, int *n) {
  line_t *ls = malloc((len + 1) * sizeof *ls);
  *n = 0;
  for (size_t p = 0; ls && p < len;) {
    size_t e = p;
    while (e < len && text[e] != '\n') e++;
    ls[*n].s = text + p;
    ls[(*n)++].n = (e > p && text[e - 1] == '\r' ? e - 1 : e) - p;
    p = e + 1;
  }
  return ls;
}

/* Walks the lines after the summary; fenced code is passed through whole. */
static void body(ctx *c, const line_t *ls, int from, int nlines) {
  int fence_line = 0;
  size_t fence_n = 0;
  char fence_ch = 0;
  for (int i = from; i < nlines; i++) {
    const char *s = ls[i].s, *rest = s;
    size_t n = ls[i].n, rn = n;
    char ch;
    size_t f = fence_len(s, n, &ch);
    trim(&rest, &rn);
    if (fence_n) { /* inside fenced code: only its closing fence matters */
      if (f >= fence_n && ch == fence_ch && rn == f) fence_n = 0;
      if (c->sec) {
        lesson_buf_put(&c->chunk, s, n);
        lesson_buf_put(&c->chunk, "\n", 1);
      }
      continue;
    }
    if (f) fence_n = f, fence_ch = ch, fence_line = i + 1;
    body_line(c, s, n, i + 1);
  }
  if (fence_n)
    FAIL(c, fence_line, "this code block is never closed; end it with a line %.*s", (int)fence_n,
         fence_ch == '`' ? "``````````" : "~~~~~~~~~~");
  end_section(c);
}

int lesson_md_compile(const char *path, cJSON **out) {
  *out = NULL;
  size_t len;
  char *text = lesson_read_file(path, &len);
  if (!text) return -1;
  ctx c = {.path = path};
  cJSON *doc = cJSON_CreateObject();
  c.sections = cJSON_CreateArray();
  line_t *ls = NULL;
  int nlines = 0, rc = -1;
  if (check_text(path, text, len)) goto end;
  size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  ls = split_lines(text + bom, len - bom, &nlines);
  if (!doc || !c.sections || !ls) {
    lesson_report(path, 1, "out of memory");
    goto end;
  }
  int next = head(&c, ls, nlines, doc);
  if (next < 0) goto end;
  body(&c, ls, next, nlines);
  if (cJSON_GetArraySize(c.sections) == 0)
    FAIL(&c, nlines, "the lesson has no sections; add one with '## Title {#section-id}'");
  if (c.words > LESSON_WORDS_MAX) {
    FAIL(&c, 1,
         "a learner sees %zu words before opening any fold, more than %d; keep each section's point and "
         "experiment in view and move the rest into '::: fold SUMMARY' ... ':::'. Words shown per section:",
         c.words, LESSON_WORDS_MAX);
    const cJSON *sec;
    cJSON_ArrayForEach(sec, c.sections) {
      fprintf(stderr, "  %s: %d\n", cJSON_GetObjectItemCaseSensitive(sec, "id")->valuestring,
              cJSON_GetObjectItemCaseSensitive(sec, "words")->valueint);
    }
  }
  cJSON_AddNumberToObject(doc, "words", (double)c.words);
  if (c.errors == 0 && !c.chunk.oom) {
    cJSON_AddItemToObject(doc, "sections", c.sections);
    c.sections = NULL;
    *out = doc;
    doc = NULL;
    rc = 0;
  } else if (c.chunk.oom) {
    lesson_report(path, 1, "out of memory");
  }
end:
  free(c.chunk.s);
  free(c.html.s);
  free(ls);
  cJSON_Delete(c.sections);
  cJSON_Delete(doc);
  free(text);
  return rc;
}
