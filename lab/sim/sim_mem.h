/* The simulator's device memory, one model for every experiment that
 * allocates (memory, allocator): the profile's capacity, its CUDA context
 * already resident, and reservations mapped in 2 MiB pages as the driver
 * maps them. It backs a lab_pool through lab_sim_mem_device. */
#ifndef LAB_SIM_MEM_H
#define LAB_SIM_MEM_H

#include <stdint.h>

#include "caching_alloc.h"
#include "profiles.h"

#define LAB_SIM_MEM_PAGE (2ull << 20)

typedef struct lab_sim_mem {
  uint64_t capacity; /* the card's memory */
  uint64_t context;  /* what the CUDA context holds before anything is allocated */
  uint64_t used;     /* pages mapped by reservations */
  uintptr_t next;    /* the next pretend device address */
} lab_sim_mem;

void lab_sim_mem_init(lab_sim_mem *s, const lab_profile *prof);
/* A pool device over s: reserve maps whole pages or fails when the card is
 * full; info reports free = capacity - context - used. No check. */
lab_pool_device lab_sim_mem_device(lab_sim_mem *s);

#endif
