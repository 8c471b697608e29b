/* A temporary folder holding a class database path, for the unit suites
 * that open a real SQLite store (check_store.c, check_throttle.c): made in
 * a Check fixture's setup, removed with everything in it at teardown. */
#ifndef TESTS_TEMP_DB_H
#define TESTS_TEMP_DB_H

#include <stddef.h>

typedef struct test_temp_db {
  char dir[64];
  char db[128]; /* dir/class.db, not created */
} test_temp_db;

/* prefix names the folder in /tmp (e.g. "gpulab-store"); fails the test when it cannot be made. */
void test_temp_db_make(test_temp_db *t, const char *prefix);
void test_temp_db_remove(const test_temp_db *t);

#endif
