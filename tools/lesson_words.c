/* The words a learner first sees in a lesson: counted on the HTML lessonc
 * writes, so Markdown syntax, link targets and tags never count. Code blocks
 * (<pre>…</pre>) are skipped: a learner copies them rather than reads them.
 * Folded text is not passed here at all (lesson_md.c counts outside folds). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "lesson.h"

/* A word is a run of characters between spaces and tags that holds at least
 * one letter or digit; "—", "|" or "&amp;" alone is not a word. */
size_t lesson_words(const char *s, size_t n, bool html) {
  size_t words = 0;
  bool in_word = false, has_alnum = false;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    bool gap = isspace(ch);
    if (html && ch == '<') {
      if (n - i >= 4 && strncmp(s + i, "<pre", 4) == 0) {
        const char *end = NULL;
        for (size_t j = i; j + 6 <= n && !end; j++)
          if (strncmp(s + j, "</pre>", 6) == 0) end = s + j;
        i = end ? (size_t)(end - s) + 5 : n;
      } else {
        while (i < n && s[i] != '>') i++;
      }
      gap = true;
    } else if (html && ch == '&') {
      while (i < n && s[i] != ';' && !isspace((unsigned char)s[i])) i++;
      continue; /* an entity is one punctuation mark: it neither ends nor makes a word */
    }
    if (gap) {
      words += in_word && has_alnum;
      in_word = has_alnum = false;
    } else {
      in_word = true;
      has_alnum = has_alnum || isalnum(ch);
    }
  }
  return words + (in_word && has_alnum);
}
