/* The pages that take the lesson's place, one line each in page_table.c
 * (as the server's routes are in server/api/routes.c): the address that
 * shows a page, the navigation's link to it, and what the app calls when
 * it shows, leaves, refreshes and shuts down, and for the page's actions.
 * The lesson itself is the default: any other address is a lesson's or an
 * in-page anchor (app.c). */
#ifndef UI_PAGE_TABLE_H
#define UI_PAGE_TABLE_H

#include <stdbool.h>

#include "gpu_panel.h"
#include "lesson_html.h"

typedef struct ui_page {
  const char *hash; /* "lab": the page is "#lab" … */
  bool subpaths;    /* … and, when true, "#lab/…" too */
  ui_nav_link nav;  /* the navigation's link to it */
  void (*show)(const char *hash, const ui_device_state *dev, bool focus); /* into the element "lesson" */
  void (*leave)(void);                         /* another page or a lesson replaced it; NULL: nothing to forget */
  void (*refresh)(const ui_device_state *dev); /* the device check changed; NULL: nothing to redraw */
  bool (*action)(const char *action, const char *arg); /* true when it handled the action; NULL: it has none */
  void (*shutdown)(void);
  bool profiles; /* it offers "simulate as" pickers: the calibrated profile is asked when it shows */
  void (*start)(void); /* when the app starts (what it kept from an earlier visit); NULL: nothing */
} ui_page;

/* The page an address shows ("#lab/timing?size=64": the workbench;
 * "#plan?batch=8", "#explain?text=…": a page's address may carry a
 * query), or NULL for a lesson's address or an in-page anchor. */
const ui_page *ui_page_for(const char *hash);
int ui_page_count(void);
const ui_page *ui_page_at(int i);

#endif
