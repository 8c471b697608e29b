/* The page's address: "#lesson/ID" or "#lesson/ID/SECTION". Ids are short
 * lower-case words, checked before they go into a URL or an element id. */
#ifndef UI_ROUTE_H
#define UI_ROUTE_H

#include <stdbool.h>

#define UI_ID_MAX 64

typedef struct ui_route {
  char lesson[UI_ID_MAX];  /* "" when the address names no lesson */
  char section[UI_ID_MAX]; /* "" when it names no section */
} ui_route;

/* true for 1..63 characters of a-z, 0-9 and '-'. */
bool ui_id_valid(const char *id);
/* 0 for a lesson route (or an empty one, which leaves r empty); -1 for any
 * other address, such as an in-page anchor ("#main"), which the browser handles. */
int ui_route_parse(const char *hash, ui_route *r);

#endif
