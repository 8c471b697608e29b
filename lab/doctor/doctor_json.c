/* The streaming JSON reader behind `gpulab doctor` (lab/doctor/doctor_json.h): a
 * byte-at-a-time lexer and a pushdown grammar check, resumable at any chunk
 * boundary. Only the token being read is buffered. */
#include "doctor_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LX_WS, LX_STR, LX_ESC, LX_U, LX_WORD };
enum { E_VALUE, E_VALUE_OR_CLOSE, E_KEY_OR_CLOSE, E_KEY, E_COLON, E_COMMA_OR_CLOSE, E_DONE };

struct lab_dj {
  lab_dj_sink sink;
  int lx, exp, depth, str_is_key, ucount;
  unsigned u;
  lab_dj_status st;
  size_t off, len, cap;
  char *tok;
  unsigned char stack[LAB_DJ_MAX_DEPTH]; /* 1: object, 0: array */
};

lab_dj *lab_dj_new(const lab_dj_sink *sink) {
  lab_dj *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  j->sink = *sink;
  j->cap = 256;
  j->tok = malloc(j->cap);
  if (!j->tok) {
    free(j);
    return NULL;
  }
  return j;
}

void lab_dj_free(lab_dj *j) {
  if (!j) return;
  free(j->tok);
  free(j);
}

size_t lab_dj_offset(const lab_dj *j) { return j->off; }

static int push(lab_dj *j, char c) {
  if (j->len + 1 >= j->cap) {
    if (j->cap >= LAB_DJ_MAX_TOKEN) return LAB_DJ_TOO_LONG;
    size_t nc = j->cap * 2 > LAB_DJ_MAX_TOKEN ? LAB_DJ_MAX_TOKEN : j->cap * 2;
    char *t = realloc(j->tok, nc);
    if (!t) return LAB_DJ_NOMEM;
    j->tok = t;
    j->cap = nc;
  }
  j->tok[j->len++] = c;
  return LAB_DJ_OK;
}

static int push_utf8(lab_dj *j, unsigned cp) {
  int r = 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* a lone or paired surrogate: names only need to print */
  if (cp < 0x80) r |= push(j, (char)cp);
  else if (cp < 0x800) r |= push(j, (char)(0xC0 | (cp >> 6))) | push(j, (char)(0x80 | (cp & 63)));
  else
    r |= push(j, (char)(0xE0 | (cp >> 12))) | push(j, (char)(0x80 | ((cp >> 6) & 63))) | push(j, (char)(0x80 | (cp & 63)));
  return r ? (j->len + 4 >= LAB_DJ_MAX_TOKEN ? LAB_DJ_TOO_LONG : LAB_DJ_NOMEM) : LAB_DJ_OK;
}

static void after_value(lab_dj *j) { j->exp = j->depth ? E_COMMA_OR_CLOSE : E_DONE; }

static int stopped(lab_dj *j, int r) {
  if (r) j->st = LAB_DJ_STOP;
  return r;
}

/* A JSON number exactly as the grammar allows: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static int is_number(const char *s) {
  if (*s == '-') s++;
  if (*s == '0') s++;
  else if (*s >= '1' && *s <= '9')
    while (*s >= '0' && *s <= '9') s++;
  else return 0;
  if (*s == '.') {
    s++;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

static lab_dj_status end_word(lab_dj *j) {
  j->tok[j->len] = '\0';
  const char *w = j->tok;
  lab_dj_sink *k = &j->sink;
  j->lx = LX_WS;
  if (!strcmp(w, "true") || !strcmp(w, "false") || !strcmp(w, "null")) {
    int which = w[0] == 'n' ? 0 : w[0] == 't' ? 1 : 2;
    after_value(j);
    return stopped(j, k->literal && k->literal(k->ctx, which)) ? LAB_DJ_STOP : LAB_DJ_OK;
  }
  if (!strcmp(w, "NaN") || !strcmp(w, "Infinity") || !strcmp(w, "-Infinity")) return LAB_DJ_NONFINITE;
  if (!is_number(w)) return LAB_DJ_SYNTAX;
  double v = strtod(w, NULL);
  if (!isfinite(v)) return LAB_DJ_NONFINITE;
  after_value(j);
  return stopped(j, k->number && k->number(k->ctx, v)) ? LAB_DJ_STOP : LAB_DJ_OK;
}

static lab_dj_status end_string(lab_dj *j) {
  lab_dj_sink *k = &j->sink;
  j->tok[j->len] = '\0';
  j->lx = LX_WS;
  if (j->str_is_key) {
    j->exp = E_COLON;
    return stopped(j, k->key && k->key(k->ctx, j->tok, j->len)) ? LAB_DJ_STOP : LAB_DJ_OK;
  }
  after_value(j);
  return stopped(j, k->string && k->string(k->ctx, j->tok, j->len)) ? LAB_DJ_STOP : LAB_DJ_OK;
}

static lab_dj_status structural(lab_dj *j, char c) {
  lab_dj_sink *k = &j->sink;
  int want_value = j->exp == E_VALUE || j->exp == E_VALUE_OR_CLOSE;
  switch (c) {
  case ' ': case '\t': case '\n': case '\r': return LAB_DJ_OK;
  case '{': case '[':
    if (!want_value) return LAB_DJ_SYNTAX;
    if (j->depth >= LAB_DJ_MAX_DEPTH) return LAB_DJ_TOO_DEEP;
    j->stack[j->depth++] = c == '{';
    j->exp = c == '{' ? E_KEY_OR_CLOSE : E_VALUE_OR_CLOSE;
    return stopped(j, k->open && k->open(k->ctx, c == '{')) ? LAB_DJ_STOP : LAB_DJ_OK;
  case '}': case ']': {
    int obj = c == '}';
    if (!j->depth || j->stack[j->depth - 1] != obj) return LAB_DJ_SYNTAX;
    if (!(j->exp == E_COMMA_OR_CLOSE || (obj && j->exp == E_KEY_OR_CLOSE) || (!obj && j->exp == E_VALUE_OR_CLOSE)))
      return LAB_DJ_SYNTAX;
    j->depth--;
    after_value(j);
    return stopped(j, k->close && k->close(k->ctx, obj)) ? LAB_DJ_STOP : LAB_DJ_OK;
  }
  case ',':
    if (j->exp != E_COMMA_OR_CLOSE) return LAB_DJ_SYNTAX;
    j->exp = j->stack[j->depth - 1] ? E_KEY : E_VALUE;
    return LAB_DJ_OK;
  case ':':
    if (j->exp != E_COLON) return LAB_DJ_SYNTAX;
    j->exp = E_VALUE;
    return LAB_DJ_OK;
  case '"':
    if (j->exp == E_KEY || j->exp == E_KEY_OR_CLOSE) j->str_is_key = 1;
    else if (want_value) j->str_is_key = 0;
    else return LAB_DJ_SYNTAX;
    j->lx = LX_STR;
    j->len = 0;
    return LAB_DJ_OK;
  default:
    if (!want_value) return LAB_DJ_SYNTAX;
    if (!((c >= '0' && c <= '9') || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return LAB_DJ_SYNTAX;
    j->lx = LX_WORD;
    j->len = 0;
    return push(j, c);
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static lab_dj_status step(lab_dj *j, char c) {
  switch (j->lx) {
  case LX_STR:
    if (c == '"') return end_string(j);
    if (c == '\\') {
      j->lx = LX_ESC;
      return LAB_DJ_OK;
    }
    if ((unsigned char)c < 0x20) return LAB_DJ_SYNTAX;
    return push(j, c);
  case LX_ESC: {
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    if (c == 'u') {
      j->lx = LX_U;
      j->u = 0;
      j->ucount = 0;
      return LAB_DJ_OK;
    }
    const char *p = c ? strchr(from, c) : NULL;
    if (!p) return LAB_DJ_SYNTAX;
    j->lx = LX_STR;
    return push(j, to[p - from]);
  }
  case LX_U: {
    int h = hexval(c);
    if (h < 0) return LAB_DJ_SYNTAX;
    j->u = j->u * 16 + (unsigned)h;
    if (++j->ucount < 4) return LAB_DJ_OK;
    j->lx = LX_STR;
    return j->u ? push_utf8(j, j->u) : push(j, '?'); /* a NUL would cut the name short */
  }
  case LX_WORD:
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      return push(j, c);
    {
      lab_dj_status s = end_word(j);
      return s ? s : structural(j, c);
    }
  default:
    return structural(j, c);
  }
}

lab_dj_status lab_dj_feed(lab_dj *j, const char *buf, size_t n) {
  for (size_t i = 0; i < n && !j->st; i++) {
    if (j->exp == E_DONE && j->lx == LX_WS) {
      char c = buf[i];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') j->st = LAB_DJ_SYNTAX;
      else j->off++;
      continue;
    }
    lab_dj_status s = step(j, buf[i]);
    if (s && !j->st) j->st = s;
    if (!j->st) j->off++;
  }
  return j->st;
}

lab_dj_status lab_dj_end(lab_dj *j) {
  if (j->st) return j->st;
  if (j->lx == LX_WORD) {
    lab_dj_status s = end_word(j);
    if (s) return j->st = s;
  }
  if (j->lx != LX_WS || j->exp != E_DONE) return j->st = LAB_DJ_SYNTAX;
  return LAB_DJ_OK;
}
