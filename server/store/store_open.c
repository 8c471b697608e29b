/* The store's factory: the setting names the backend (store.h). Apart from
 * store_dispatch.c, whose functions only dispatch through a store's operations, so
 * that no backend file calls back into a file that calls it. */
#include <string.h>

#include "store_backend.h"

int srv_store_open_spec(const char *spec, srv_store **out, lab_error *err) {
  if (srv_store_spec_is_pg(spec)) return srv_store_pg_open(spec, out, err);
  return srv_store_open(strncmp(spec, "sqlite:", 7) == 0 ? spec + 7 : spec, out, err);
}

