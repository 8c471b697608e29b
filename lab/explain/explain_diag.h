/* The explanation table (explain_diag.c, explain_diag_mac_amd.c): the row
 * of each diagnosis id (explain_row.h says what a row holds). */
#ifndef LAB_EXPLAIN_DIAG_H
#define LAB_EXPLAIN_DIAG_H

#include "explain_row.h"

/* The row for id (either table); the "unknown" row when there is none. */
const lab_ex_diag *lab_ex_diag_find(const char *id);
int lab_ex_diag_count(void);
const lab_ex_diag *lab_ex_diag_at(int i);

#endif
