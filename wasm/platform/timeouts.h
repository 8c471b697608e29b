/* How long the client waits for the server before it gives up and says so.
 * One place for every request the page makes, so a hung server never leaves
 * the page on "Connecting…": after these the page falls back to the static
 * files or to simulating in the browser (docs/architecture.md). */
#ifndef UI_TIMEOUTS_H
#define UI_TIMEOUTS_H

/* Ordinary API calls (health, device, lessons, profiles, session, join,
 * quiz scoring, one poll of a queued class run). The server answers these
 * from memory in milliseconds; 5 s is a slow phone network's worth of
 * margin, and short enough that a class is simulating before it notices. */
#define UI_API_TIMEOUT_MS 5000
/* A solo GPU run (POST /api/experiments/NAME outside class mode) answers
 * only when the run ends: the server waits up to 30 s for its GPU worker,
 * then gives the run its deadline (60 s by default, --deadline), so 120 s
 * is that worst case plus 30 s of margin. A class server answers 202 at
 * once and the page polls, each poll bounded by UI_API_TIMEOUT_MS. */
#define UI_RUN_TIMEOUT_MS 120000
/* A kit run handed in to a class (POST /api/handins): up to 1 MiB sent,
 * read and checked within the route's 60 s deadline, and margin. */
#define UI_HANDIN_TIMEOUT_MS 75000
/* A server whose own device check has not answered yet (503
 * device_check_timeout) is asked again by the page (wasm/pages/app.c,
 * device_retry): at most this many times, each wait the server's
 * Retry-After or twice the last, whichever is longer, up to the cap. */
#define UI_DEVICE_RETRIES 5
#define UI_DEVICE_RETRY_MAX_S 30

#endif
