/* One row of the explanation table, as explain_diag.c and
 * explain_diag_mac_amd.c write them: a diagnosis id, its title, its text
 * with {fact} holes ("[…]": a part left out when a hole in it is empty;
 * "[?fact …]": a part shown only when the fact is true), the first steps in
 * order ("@cuda@none …": a step only for those platforms, or that free
 * service: "@kaggle"), the lesson section and the experiment. */
#ifndef LAB_EXPLAIN_ROW_H
#define LAB_EXPLAIN_ROW_H

#define LAB_EX_MAX_STEPS 8

typedef struct lab_ex_diag {
  const char *id, *title, *text;
  const char *steps[LAB_EX_MAX_STEPS];
  const char *lesson, *section, *experiment;
} lab_ex_diag;

#endif
