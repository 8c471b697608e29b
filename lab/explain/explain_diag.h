/* The explanation table (explain_diag.c): per diagnosis id its title, its
 * text with {fact} holes, the first steps in order, the lesson section and
 * the experiment. */
#ifndef LAB_EXPLAIN_DIAG_H
#define LAB_EXPLAIN_DIAG_H

#define LAB_EX_MAX_STEPS 6

typedef struct lab_ex_diag {
  const char *id, *title, *text;
  const char *steps[LAB_EX_MAX_STEPS];
  const char *lesson, *section, *experiment;
} lab_ex_diag;

/* The row for id; the "unknown" row when there is none. */
const lab_ex_diag *lab_ex_diag_find(const char *id);
int lab_ex_diag_count(void);
const lab_ex_diag *lab_ex_diag_at(int i);

#endif
