/* The unit suites' temporary class database folder (temp_db.h). */
#include "temp_db.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

void test_temp_db_make(test_temp_db *t, const char *prefix) {
  snprintf(t->dir, sizeof t->dir, "/tmp/%.40s-XXXXXX", prefix);
  ck_assert_ptr_nonnull(mkdtemp(t->dir));
  snprintf(t->db, sizeof t->db, "%s/class.db", t->dir);
}

void test_temp_db_remove(const test_temp_db *t) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
  ck_assert_int_eq(system(cmd), 0);
}
