/* The one flat route table of `gpulab serve`: URI prefixes and their
 * handlers (api.h). serve.c registers them; the OpenAPI document
 * (openapi.h) must describe every one, which a unit test checks. */
#ifndef SRV_ROUTES_H
#define SRV_ROUTES_H

#include <civetweb.h>

typedef struct srv_uri_route {
  const char *uri; /* CivetWeb prefix: "/api/runs" also serves "/api/runs/12" */
  mg_request_handler handler;
} srv_uri_route;

extern const srv_uri_route srv_routes[];
extern const int srv_route_count;

#endif
