/* Helpers shared by the suites that check the client's HTML and SVG:
 * well-formed markup and counting occurrences. */
#ifndef TESTS_UI_TEST_H
#define TESTS_UI_TEST_H

#include <stddef.h>

/* Tags open and close in order (void elements need no close), attribute
 * values are quoted, no '<' inside a tag, no raw '>' in text, and every '&'
 * starts an entity: enough to catch markup broken by data. NULL when fine,
 * else what is wrong (a static buffer). */
const char *test_ui_markup_problem(const char *s);
/* How often needle occurs in hay (overlapping occurrences counted). */
int test_ui_count(const char *hay, const char *needle);

/* Every <text> of every <svg> in html, measured as web/style.css sizes it
 * at a page `width` px wide (0.6 em per character, a conservative average
 * for the sans font): NULL when no two labels overlap and none leaves its
 * chart, else what collides (a static buffer). */
const char *test_ui_svg_label_problem(const char *html, int width);

/* The fake bridge's kit import: a file of size bytes chosen on the page
 * (bytes NULL: not read, as the browser's worker does past 1 MiB), compared
 * with test_kit_claims (JSON text, or NULL) as the lessons' claims. */
void test_ui_kit_file(const char *name, const char *bytes, size_t size);
extern const char *test_kit_claims;

/* The fake bridge's form values and last ui_later delay (check_ui_experiment.c). */
extern const char *test_class_code, *test_class_name;
extern int test_later_ms;

#endif
