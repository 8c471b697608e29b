/* The explainer's driver: checks the paste (size, text), asks every
 * recogniser for its next message, takes the earliest, cuts it where the
 * next message of another kind starts, and goes on after it; the same
 * message printed twice in a row (a traceback repeats it) is one item.
 * Work is linear in the paste: each recogniser searches on from where it
 * stood (its lab_ex_memo), and a message's window, read once, ends where
 * the next one starts; at most LAB_EXPLAIN_MAX_ITEMS items, memory only the
 * answer's. Every byte a recogniser looks at is counted (lab_explain_cost). */
#include "explain.h"

#include <string.h>

#include "cutoff.h"
#include "explain_item.h"
#include "explain_scan.h"
#include "utf8.h"

static const lab_ex_recogniser *const recognisers[] = {&lab_ex_oom,     &lab_ex_mismatch, &lab_ex_async, &lab_ex_setup,
                                                       &lab_ex_smi,     &lab_ex_env,      &lab_ex_summary, &lab_ex_mps_oom,
                                                       &lab_ex_mps,     &lab_ex_hip};
#define NREC (sizeof recognisers / sizeof recognisers[0])
_Static_assert(NREC == LAB_EXPLAIN_RECOGNISERS, "explain.h counts the recognisers");

double lab_explain_size(const char *s, size_t n, size_t *used) { return lab_ex_parse_size(s, n, used); }

const char *lab_explain_recogniser_kind(int i) { return i >= 0 && i < (int)NREC ? recognisers[i]->kind : NULL; }

static void item_free(lab_ex_item *it) {
  cJSON_Delete(it->facts);
  cJSON_Delete(it->params);
  cJSON_Delete(it->ask);
  cJSON_Delete(it->bar);
  memset(it, 0, sizeof *it);
}

/* The later item repeats the earlier one (same kind and diagnosis): keep
 * the earlier, with any fact only the later one read. */
static void merge_into(lab_ex_item *a, lab_ex_item *b) {
  for (cJSON *f = b->facts ? b->facts->child : NULL; f; f = f->next)
    if (!cJSON_GetObjectItemCaseSensitive(a->facts, f->string))
      cJSON_AddItemToObject(a->facts, f->string, cJSON_Duplicate(f, 1));
  if (!a->bar && b->bar) a->bar = b->bar, b->bar = NULL;
  item_free(b);
}

static int only_space(const char *t, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') return 0;
  return 1;
}

/* What the paste shows of the machine goes on every item: its platform
 * (the message's own, else the paste's), and the gfx target on an AMD
 * card, the free service on an NVIDIA one, when the message has none. */
static void add_paste_facts(lab_ex_item *it, const lab_ex_paste *p) {
  int platform = it->platform ? it->platform : p->platform;
  cJSON *f = it->facts;
  if (platform && !cJSON_GetObjectItemCaseSensitive(f, "platform"))
    cJSON_AddStringToObject(f, "platform", lab_ex_platform_name(platform));
  if (platform == LAB_EX_ROCM && p->gfx[0] && !cJSON_GetObjectItemCaseSensitive(f, "gfx")) cJSON_AddStringToObject(f, "gfx", p->gfx);
  if (platform != LAB_EX_ROCM && platform != LAB_EX_MAC && p->host && !cJSON_GetObjectItemCaseSensitive(f, "host"))
    cJSON_AddStringToObject(f, "host", p->host);
}

/* Counts what a recogniser's call looked at against it. */
#define COUNTED(cost, r, call)                                                        \
  do {                                                                                \
    size_t before_ = lab_ex_examined();                                               \
    call;                                                                             \
    if (cost) (cost)->examined[r] += lab_ex_examined() - before_;                     \
  } while (0)

cJSON *lab_explain_cost(const char *text, size_t len, lab_explain_costs *cost, lab_error *err) {
  if (cost) memset(cost, 0, sizeof *cost);
  if (len > LAB_EXPLAIN_MAX_BYTES) {
    lab_fail(err, LAB_E_EXPLAIN_TOO_LARGE, NULL, "The text is %zu bytes; paste at most %d KiB (the error and a "
             "few lines around it).", len, LAB_EXPLAIN_MAX_BYTES / 1024);
    return NULL;
  }
  if (!text || only_space(text, len)) {
    lab_fail(err, LAB_E_EXPLAIN_EMPTY, NULL, NULL);
    return NULL;
  }
  size_t bad = 0;
  if (memchr(text, '\0', len) || !lab_utf8_valid(text, len, &bad)) {
    lab_fail(err, LAB_E_EXPLAIN_NOT_TEXT, NULL, "The text holds bytes that are not UTF-8 text (at byte %zu); "
             "paste the message as text.", memchr(text, '\0', len) ? (size_t)((const char *)memchr(text, '\0', len) - text) : bad);
    return NULL;
  }
  cJSON *root = cJSON_CreateObject();
  cJSON *items = cJSON_AddArrayToObject(root, "items");
  cJSON_AddNumberToObject(root, "explain", 1);
  lab_ex_item prev = {0};
  lab_ex_paste paste;
  size_t before_paste = lab_ex_examined();
  lab_ex_paste_read(text, len, &paste); /* once: what the whole paste shows of the machine */
  if (cost) cost->paste = lab_ex_examined() - before_paste;
  lab_ex_memo memo[NREC];
  memset(memo, 0, sizeof memo);
  size_t pos = 0, starts[NREC];
  int count = 0, more = 0, read = 0;
  for (size_t r = 0; r < NREC; r++) /* each recogniser's next message, found again only once passed */
    COUNTED(cost, r, starts[r] = recognisers[r]->find(text, len, 0, &memo[r]));
  while (!more) {
    /* Between messages the server may cut a paste short (its deadline or
     * CPU budget, a client gone: cutoff.h); elsewhere this never stops. */
    if (lab_cutoff(err)) {
      item_free(&prev);
      cJSON_Delete(root);
      return NULL;
    }
    size_t best = LAB_EX_NONE, cut = LAB_EX_NONE;
    int who = -1;
    for (size_t r = 0; r < NREC; r++) {
      if (starts[r] != LAB_EX_NONE && starts[r] < pos) COUNTED(cost, r, starts[r] = recognisers[r]->find(text, len, pos, &memo[r]));
      if (starts[r] < best) best = starts[r], who = (int)r;
    }
    if (who < 0) break;
    if (++read > LAB_EXPLAIN_MAX_MESSAGES) { /* repeats merged or not, the work stays bounded */
      more = 1;
      break;
    }
    for (size_t r = 0; r < NREC; r++) /* another kind's message that starts inside this one ends it */
      if ((int)r != who && starts[r] > best && starts[r] < cut) cut = starts[r];
    size_t end = 0;
    COUNTED(cost, who, end = recognisers[who]->extent(text, len, best, cut == LAB_EX_NONE ? len : cut, &memo[who]));
    if (end <= best) end = best + 1;
    lab_ex_item it = {.paste = &paste};
    it.facts = cJSON_CreateObject();
    COUNTED(cost, who, recognisers[who]->read(text, len, best, end, &memo[who], &it));
    add_paste_facts(&it, &paste);
    pos = end;
    if (prev.kind && !strcmp(prev.kind, it.kind) && !strcmp(prev.diag, it.diag)) {
      merge_into(&prev, &it);
      continue;
    }
    if (prev.kind) {
      if (count < LAB_EXPLAIN_MAX_ITEMS) cJSON_AddItemToArray(items, lab_ex_item_json(&prev)), count++;
      else more = 1;
      item_free(&prev);
    }
    prev = it;
  }
  if (prev.kind) {
    if (count < LAB_EXPLAIN_MAX_ITEMS) cJSON_AddItemToArray(items, lab_ex_item_json(&prev)), count++;
    else more = 1;
    item_free(&prev);
  }
  if (count == 0) cJSON_AddItemToArray(items, lab_ex_unknown_json(paste.platform));
  if (more) cJSON_AddBoolToObject(root, "more", 1); /* messages past the first LAB_EXPLAIN_MAX_ITEMS */
  if (!items || cJSON_GetArraySize(items) != (count ? count : 1)) { /* an allocation failed on the way */
    cJSON_Delete(root);
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  return root;
}

cJSON *lab_explain(const char *text, size_t len, lab_error *err) { return lab_explain_cost(text, len, NULL, err); }
