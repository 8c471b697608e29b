/* The explanation table's rows for what a Mac (MPS) and an AMD card (ROCm,
 * HIP) print (explain_diag_mac_amd.c); explain_diag.c searches them with
 * its own. */
#ifndef LAB_EXPLAIN_DIAG_MAC_AMD_H
#define LAB_EXPLAIN_DIAG_MAC_AMD_H

#include "explain_row.h"

extern const lab_ex_diag lab_ex_diag_mac_amd[];
extern const int lab_ex_diag_mac_amd_count;

#endif
