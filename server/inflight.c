/* The in-flight counts (see inflight.h): a small table of (key, count),
 * two keys per request at most, scanned whole under one lock: a server
 * has a few dozen threads, so it never holds more than a few dozen keys. */
#include "inflight.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  char key[SRV_INFLIGHT_KEY_MAX];
  int count; /* 0: a free entry */
} entry;

struct srv_inflight {
  pthread_mutex_t lock;
  int total, held, capacity;
  entry *e;
};

srv_inflight *srv_inflight_new(int total) {
  if (total < 1) return NULL;
  srv_inflight *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->capacity = 2 * total; /* every request holds at most two keys */
  t->e = calloc((size_t)t->capacity, sizeof *t->e);
  if (!t->e) {
    free(t);
    return NULL;
  }
  t->total = total;
  pthread_mutex_init(&t->lock, NULL);
  return t;
}

void srv_inflight_free(srv_inflight *t) {
  if (!t) return;
  pthread_mutex_destroy(&t->lock);
  free(t->e);
  free(t);
}

/* Under the lock: key's entry, or NULL; *free_slot the first free one. */
static entry *find(srv_inflight *t, const char *key, entry **free_slot) {
  entry *hit = NULL;
  if (free_slot) *free_slot = NULL;
  for (int i = 0; i < t->capacity; i++) {
    if (t->e[i].count > 0 && strncmp(t->e[i].key, key, SRV_INFLIGHT_KEY_MAX - 1) == 0) hit = &t->e[i];
    if (t->e[i].count == 0 && free_slot && !*free_slot) *free_slot = &t->e[i];
  }
  return hit;
}

int srv_inflight_take(srv_inflight *t, const char *const keys[], const int max[], int n) {
  pthread_mutex_lock(&t->lock);
  int full = t->held >= t->total ? n : -1;
  for (int i = 0; i < n && full < 0; i++) {
    entry *e = find(t, keys[i], NULL);
    if (e && e->count >= max[i]) full = i;
  }
  for (int i = 0; i < n && full < 0; i++) {
    entry *slot, *e = find(t, keys[i], &slot);
    if (!e && (e = slot)) snprintf(e->key, sizeof e->key, "%s", keys[i]);
    if (e) e->count++; /* never NULL: the table has room for two keys a request */
  }
  if (full < 0) t->held++;
  pthread_mutex_unlock(&t->lock);
  return full;
}

void srv_inflight_give(srv_inflight *t, const char *const keys[], int n) {
  pthread_mutex_lock(&t->lock);
  for (int i = 0; i < n; i++) {
    entry *e = find(t, keys[i], NULL);
    if (e) e->count--;
  }
  if (t->held > 0) t->held--;
  pthread_mutex_unlock(&t->lock);
}

int srv_inflight_count(srv_inflight *t, int *total) {
  pthread_mutex_lock(&t->lock);
  int held = t->held;
  if (total) *total = t->total;
  pthread_mutex_unlock(&t->lock);
  return held;
}
