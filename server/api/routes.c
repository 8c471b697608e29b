/* The route table (see routes.h). CivetWeb picks an exact match first,
 * then the longest prefix ending at a '/', so "/api" catches every API path
 * no other route has and "/" everything else (static files). */
#include "routes.h"

#include "api.h"
#include "openapi.h"

const srv_uri_route srv_routes[] = {
    {"/api/health", srv_api_health},
    {"/api/device", srv_api_device},
    {"/api/experiments", srv_api_experiments},
    {"/api/profiles", srv_api_profiles},
    {"/api/lessons", srv_api_lessons},
    {"/api/openapi.json", srv_api_openapi},
    {"/api/explain", srv_api_explain},
    {"/api/doctor", srv_api_doctor},
    {"/api/plan", srv_api_plan},
    /* class mode: each answers not_found when no class runs */
    {"/api/class", srv_api_class},
    {"/api/session", srv_api_session},
    {"/api/instructor", srv_api_instructor},
    {"/api/runs", srv_api_runs},
    {"/api/handins", srv_api_handins},
    {"/api", srv_api_not_found},
    {"/metrics", srv_api_metrics},
    {"/", srv_static},
};

const int srv_route_count = sizeof srv_routes / sizeof srv_routes[0];
