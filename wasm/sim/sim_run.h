/* One simulation as text in and text out: what the simulation module (a Web
 * Worker, sim_main.c) runs for the page's UI module, and what the unit
 * tests' fake bridge runs natively in its place. */
#ifndef UI_SIM_RUN_H
#define UI_SIM_RUN_H

/* Runs experiment's simulator with params (JSON text of an object; "" for the
 * defaults) on the named profile ("" for the default). profile_json, when not
 * empty, is a calibrated profile (GET /api/profiles' entry) that joins the
 * built-in ones first. Returns 200 with *text the envelope, or 400 with
 * *text {"error":…}; *text is the caller's to free (NULL when out of memory).
 * The planner rides the same message: experiment "plan" and the settings
 * as params_json (plan_run.h). */
int ui_sim_run(const char *experiment, const char *params_json, const char *profile, const char *profile_json,
               char **text);

#endif
