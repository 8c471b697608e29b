/* The simulated device memory (see sim_mem.h). Page rounding is what makes
 * the driver's "used" differ from the allocator's "reserved" by a little. */
#include "sim_mem.h"

static uint64_t pages(uint64_t bytes) { return (bytes + LAB_SIM_MEM_PAGE - 1) / LAB_SIM_MEM_PAGE * LAB_SIM_MEM_PAGE; }

static int sim_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  lab_sim_mem *s = ctx;
  uint64_t need = pages(bytes);
  if (s->context + s->used + need > s->capacity) return -1;
  s->used += need;
  *addr = s->next;
  s->next += need;
  return 0;
}

static void sim_release(void *ctx, uintptr_t addr, uint64_t bytes) {
  lab_sim_mem *s = ctx;
  (void)addr;
  s->used -= pages(bytes);
}

static int sim_info(void *ctx, uint64_t *free_bytes, uint64_t *total_bytes) {
  lab_sim_mem *s = ctx;
  *total_bytes = s->capacity;
  *free_bytes = s->capacity - s->context - s->used;
  return 0;
}

void lab_sim_mem_init(lab_sim_mem *s, const lab_profile *prof) {
  s->capacity = prof->memory_bytes;
  s->context = prof->context_bytes;
  s->used = 0;
  s->next = (uintptr_t)LAB_SIM_MEM_PAGE;
}

lab_pool_device lab_sim_mem_device(lab_sim_mem *s) {
  lab_pool_device d = {.be = {.ctx = s, .reserve = sim_reserve, .release = sim_release},
                       .ctx = s, .info = sim_info, .check = NULL};
  return d;
}
