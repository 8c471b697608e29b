/* The OpenAPI 3 document of the HTTP API (server/api/openapi.json, built into
 * the binary), served at GET /api/openapi.json with what only the running
 * server knows filled in: its version, the codes of its error table and the
 * names of its experiments, so the document cannot fall behind them. */
#ifndef SRV_OPENAPI_H
#define SRV_OPENAPI_H

#include "cjson_compat.h"

struct mg_connection;

/* A fresh copy of the completed document (caller owns), or NULL. */
cJSON *srv_openapi_document(void);

/* GET /api/openapi.json. */
int srv_api_openapi(struct mg_connection *conn, void *app);

#endif
