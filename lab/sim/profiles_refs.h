/* The documents the built-in profiles' figures cite (profiles_refs.c),
 * read through profiles.h. */
#ifndef LAB_PROFILES_REFS_H
#define LAB_PROFILES_REFS_H

#include "device_profile.h"

extern const lab_ref lab_profile_refs[];
extern const int lab_profile_ref_total;

#endif
