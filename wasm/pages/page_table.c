/* The page table (see page_table.h). */
#include "page_table.h"

#include <string.h>

#include "doctor_page.h"
#include "explain_page.h"
#include "plan_page.h"
#include "workbench.h"
#include "yours_page.h"

static const ui_page pages[] = {
    {"lab", true, {"lab", "All experiments", "run any of them on its own"}, ui_workbench_show, ui_workbench_leave,
     ui_workbench_refresh, NULL, ui_workbench_shutdown, true, NULL},
    {"explain", false, {"explain", "Paste your error", "explained in your browser"}, ui_explain_show, NULL, NULL,
     ui_explain_action, ui_explain_shutdown, false, NULL},
    {"doctor", false, {"doctor", "Read your profile", "your torch.profiler trace, read in your browser"},
     ui_doctor_show, NULL, NULL, ui_doctor_action, ui_doctor_shutdown, false, NULL},
    {"plan", false, {"plan", "Will it fit?", "plan a training run's memory and step time"}, ui_plan_show, NULL, NULL,
     ui_plan_action, ui_plan_shutdown, false, NULL},
    {"yours", false, {"yours", "Your own GPU", "your measurement kit run beside the prediction"}, ui_yours_show, NULL,
     NULL, ui_yours_action, ui_yours_shutdown, false, ui_yours_start},
};

int ui_page_count(void) { return (int)(sizeof pages / sizeof pages[0]); }

const ui_page *ui_page_at(int i) { return i >= 0 && i < ui_page_count() ? &pages[i] : NULL; }

const ui_page *ui_page_for(const char *hash) {
  if (!hash) return NULL;
  if (hash[0] == '#') hash++;
  for (int i = 0; i < ui_page_count(); i++) {
    size_t n = strlen(pages[i].hash);
    if (strncmp(hash, pages[i].hash, n) != 0) continue;
    if (hash[n] == '\0' || hash[n] == '?' || (pages[i].subpaths && hash[n] == '/')) return &pages[i];
  }
  return NULL;
}
