/* The OpenAPI document built into the server: it parses, it describes every
 * route of the route table (and no path no route serves), and its lists of
 * error codes and experiment names are the server's own. */
#include <string.h>

#include "error.h"
#include "openapi.h"
#include "registry.h"
#include "routes.h"
#include "suites.h"

/* Whether a documented path is served by the route `uri`: a prefix ending
 * at a '/' ("/" itself serves what is outside /api). */
static int serves(const char *uri, const char *path) {
  if (strcmp(uri, "/") == 0) return strncmp(path, "/api/", 5) != 0;
  size_t n = strlen(uri);
  return strncmp(path, uri, n) == 0 && (path[n] == 0 || path[n] == '/');
}

START_TEST(openapi_documents_every_route_and_only_those) {
  cJSON *doc = srv_openapi_document();
  ck_assert_ptr_nonnull(doc);
  const cJSON *paths = cJSON_GetObjectItemCaseSensitive(doc, "paths");
  ck_assert(cJSON_GetArraySize(paths) > 10);
  for (int i = 0; i < srv_route_count; i++) {
    if (strcmp(srv_routes[i].uri, "/api") == 0) continue; /* the catch-all: not_found */
    int documented = 0;
    for (const cJSON *p = paths->child; p && !documented; p = p->next) documented = serves(srv_routes[i].uri, p->string);
    ck_assert_msg(documented, "route %s is not in server/api/openapi.json", srv_routes[i].uri);
  }
  for (const cJSON *p = paths->child; p; p = p->next) {
    int routed = 0;
    for (int i = 0; i < srv_route_count && !routed; i++)
      routed = strcmp(srv_routes[i].uri, "/api") != 0 && serves(srv_routes[i].uri, p->string);
    ck_assert_msg(routed, "documented path %s has no route", p->string);
    ck_assert_msg(p->child != NULL, "path %s has no operation", p->string);
  }
  cJSON_Delete(doc);
}
END_TEST

START_TEST(openapi_lists_the_servers_codes_and_experiments) {
  cJSON *doc = srv_openapi_document();
  const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "components"), "schemas");
  const cJSON *codes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schemas, "ErrorCode"), "enum");
  ck_assert_int_eq(cJSON_GetArraySize(codes), LAB_ERR_COUNT - 1);
  ck_assert_str_eq(cJSON_GetArrayItem(codes, LAB_E_TOO_MANY_CONNECTIONS - 1)->valuestring, "too_many_connections");
  const cJSON *names = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schemas, "ExperimentName"), "enum");
  ck_assert_int_eq(cJSON_GetArraySize(names), lab_experiment_count());
  ck_assert_str_eq(cJSON_GetArrayItem(names, 0)->valuestring, lab_experiment_at(0)->name);
  cJSON_Delete(doc);
}
END_TEST

Suite *make_openapi_suite(void) {
  Suite *s = suite_create("openapi");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, openapi_documents_every_route_and_only_those);
  tcase_add_test(tc, openapi_lists_the_servers_codes_and_experiments);
  suite_add_tcase(s, tc);
  return s;
}
