/* The offline quiz key, sealed: what the browser may hold for self-study
 * without the answers being readable in it. Per question a salt, a check
 * (SHA-256 of the salt and the sorted right option ids) and the explanation
 * XORed with a keystream derived from that same answer set, so the
 * explanation opens only for the right answer, or when the learner asks to
 * see it (the client then tries every set of options: honour system). The
 * server's own key (KEYS/ID.key.json) stays plain and never leaves it. */
#ifndef LAB_QUIZ_SEAL_H
#define LAB_QUIZ_SEAL_H

#include <stdbool.h>

#include "cjson_compat.h"

/* From a key of lab_quiz_key ({"id","pass_pct","answers":{"q1":{"correct",
 * "explanation"}}}) the sealed key {"id","pass_pct","answers":{"q1":{"salt",
 * "check","box"}}} (hex strings). Deterministic for one key. Caller owns;
 * NULL on out-of-memory or a malformed key. */
cJSON *lab_quiz_seal(const cJSON *key);

/* true when one key entry is sealed ({"salt","check","box"} hex strings). */
bool lab_quiz_sealed_entry(const cJSON *entry);

/* Does choices (an array of option ids) open the sealed entry? 1 yes, with
 * *explanation (caller frees, NUL-terminated) when explanation is not
 * NULL; 0 no; -1 on out-of-memory or a malformed entry. */
int lab_quiz_seal_open(const cJSON *entry, const cJSON *choices, char **explanation);

/* The learner gave up: finds the right set among the options of question
 * (the public {"multi","options":[{"id"}]}) by trying each one (single
 * choice) or each subset (multi, at most 16 options). 0 with *answer (a new
 * array of ids) and *explanation (caller frees), or -1 when none opens it. */
int lab_quiz_reveal(const cJSON *entry, const cJSON *question, cJSON **answer, char **explanation);

#endif
