/* The built-in device profiles (profiles_data.c), read through profiles.h. */
#ifndef LAB_PROFILES_DATA_H
#define LAB_PROFILES_DATA_H

#include "device_profile.h"

extern const lab_profile lab_builtin_profiles[];
extern const int lab_builtin_profile_count;

#endif
