/* gpulab's error table: one X-macro gives the enum, the stable code string,
 * the HTTP status and the default advice. Tests assert codes, never text.
 * A lab_error carries one failure with its own message and parameter name. */
#ifndef LAB_ERROR_H
#define LAB_ERROR_H

#include <stddef.h>

typedef struct cJSON cJSON;

/* X(id, code, http_status, advice) */
#define LAB_ERRORS(X) \
  X(LAB_OK, "ok", 200, "No error.") \
  X(LAB_E_INVALID_JSON, "invalid_json", 400, "Send a JSON object, e.g. {\"params\":{}}.") \
  X(LAB_E_INVALID_PARAM, "invalid_param", 400, "See GET /api/experiments for each parameter's type and bounds.") \
  X(LAB_E_BAD_REQUEST, "bad_request", 400, "Fix the request and send it again.") \
  X(LAB_E_UNKNOWN_EXPERIMENT, "unknown_experiment", 404, "GET /api/experiments lists the experiments.") \
  X(LAB_E_UNKNOWN_PROFILE, "unknown_profile", 400, "GET /api/profiles lists the device profiles.") \
  X(LAB_E_NOT_APPLICABLE, "not_applicable", 422, "Pick another device profile: this experiment has no meaning on the GPU of the one chosen (the message says why).") \
  X(LAB_E_UNKNOWN_LESSON, "unknown_lesson", 404, "GET /api/lessons lists the lessons.") \
  X(LAB_E_NOT_FOUND, "not_found", 404, "Check the address; the API lives under /api/.") \
  X(LAB_E_METHOD_NOT_ALLOWED, "method_not_allowed", 405, "Use the method named in the Allow header.") \
  X(LAB_E_BODY_TOO_LARGE, "body_too_large", 413, "Send a smaller body.") \
  X(LAB_E_UNSUPPORTED_MEDIA, "unsupported_media_type", 415, "Send the body as application/json.") \
  X(LAB_E_LENGTH_REQUIRED, "length_required", 411, "Send the body with one Content-Length header.") \
  X(LAB_E_REQUEST_TIMEOUT, "request_timeout", 408, "Send the whole request at once; one that arrives too slowly is cut off.") \
  X(LAB_E_HEADERS_TOO_LARGE, "headers_too_large", 431, "Send fewer or shorter headers (16 KiB in all).") \
  X(LAB_E_TOO_MANY_CONNECTIONS, "too_many_connections", 429, "Too many connections from your address; retry after the Retry-After seconds.") \
  X(LAB_E_CROSS_ORIGIN, "cross_origin", 403, "Use gpulab from its own pages; another site may not send it requests.") \
  X(LAB_E_NO_GPU, "no_gpu", 503, "Run it with backend \"simulated\", or on a machine with a usable NVIDIA GPU.") \
  X(LAB_E_BUSY, "busy", 503, "The GPU is running another experiment; retry in a few seconds.") \
  X(LAB_E_DEADLINE, "deadline_exceeded", 504, "The run took longer than its deadline; try smaller parameters.") \
  X(LAB_E_WORKER_CRASHED, "worker_crashed", 500, "The GPU worker crashed and was restarted; run it again.") \
  X(LAB_E_GPU_OOM, "gpu_out_of_memory", 507, "Use a smaller size or batch, or free GPU memory first.") \
  X(LAB_E_CUDA, "cuda_error", 500, "The GPU reported an error; the worker was reset, run it again.") \
  X(LAB_E_CUDA_CALL, "cuda_call_failed", 500, "A CUDA call failed for this run only; the GPU is fine. Try other parameters, or report it if it repeats.") \
  X(LAB_E_GPU_ARCH, "gpu_arch_unsupported", 503, "This GPU's architecture is not in this build of gpulab: see GET /api/device, or run it with backend \"simulated\".") \
  X(LAB_E_USAGE, "usage", 400, "Run 'gpulab help' for the commands and options.") \
  X(LAB_E_BAD_JOIN_CODE, "bad_join_code", 403, "Check the join code your instructor gave you (e.g. ABCD-EFGH) and try again.") \
  X(LAB_E_NO_SESSION, "no_session", 401, "Join the class first (POST /api/class/join with the join code and your name).") \
  X(LAB_E_INSTRUCTOR_ONLY, "instructor_only", 401, "Send the instructor token printed at server start as 'Authorization: Bearer TOKEN'.") \
  X(LAB_E_STORE_BUSY, "store_busy", 503, "The class database is busy; retry in a few seconds.") \
  X(LAB_E_STORE_UNAVAILABLE, "store_unavailable", 507, "The class database cannot be written (disk full, read-only or I/O error); tell your instructor.") \
  X(LAB_E_UNKNOWN_RUN, "unknown_run", 404, "GET /api/session lists your runs.") \
  X(LAB_E_NOT_CANCELLABLE, "not_cancellable", 409, "Only a queued run can be cancelled; this one has started or finished.") \
  X(LAB_E_RATE_LIMITED, "rate_limited", 429, "Too many runs this minute; retry after the Retry-After seconds.") \
  X(LAB_E_QUOTA_EXCEEDED, "quota_exceeded", 429, "You used your GPU time; run it with backend \"simulated\" or ask your instructor.") \
  X(LAB_E_OVER_MEMORY_LIMIT, "over_memory_limit", 400, "Ask for less GPU memory; the class limit is in the message.") \
  X(LAB_E_QUEUE_FULL, "queue_full", 503, "The GPU queue is full; retry after the Retry-After seconds.") \
  X(LAB_E_TOO_MANY_QUEUED, "too_many_queued", 429, "You have as many GPU runs waiting as a learner may; wait for one to finish, or cancel one.") \
  X(LAB_E_SERVER_STOPPING, "server_stopping", 503, "The server is stopping; run it again in a moment.") \
  X(LAB_E_DEVICE_CHECK_TIMEOUT, "device_check_timeout", 503, "The device check did not answer in time; retry after the Retry-After seconds. Experiments can run simulated meanwhile.") \
  X(LAB_E_OVER_CPU_BUDGET, "over_cpu_budget", 400, "Lower the parameter named in param: a simulation that large would take more of the server's CPU than it gives one run.") \
  X(LAB_E_CLIENT_GONE, "client_gone", 499, "The client closed the connection before its answer, so the work was not done (or was stopped); send the request again if it is still wanted.") \
  X(LAB_E_EXPLAIN_TOO_LARGE, "explain_too_large", 413, "Paste at most 256 KiB: the error message and a few lines around it.") \
  X(LAB_E_EXPLAIN_EMPTY, "explain_empty", 400, "Paste the error message (or nvidia-smi / collect_env output) to explain.") \
  X(LAB_E_EXPLAIN_NOT_TEXT, "explain_not_text", 400, "Paste the message as UTF-8 text, not a binary file.") \
  X(LAB_E_DOCTOR_NOT_TRACE, "doctor_not_trace", 400, "Give the JSON file torch.profiler wrote (prof.export_chrome_trace(path) or tensorboard_trace_handler), plain or .gz.") \
  X(LAB_E_DOCTOR_TRUNCATED, "doctor_truncated", 400, "The trace ends early: let the profiler finish writing it (leave the with-block) and copy the whole file.") \
  X(LAB_E_DOCTOR_BAD_NUMBER, "doctor_bad_number", 400, "The trace has a time or size that is not a finite, non-negative number; export it again.") \
  X(LAB_E_DOCTOR_NO_EVENTS, "doctor_no_events", 400, "The trace has no timed events: profile a few steps inside the with-block (prof.step() each step).") \
  X(LAB_E_DOCTOR_NAME_TOO_LONG, "doctor_name_too_long", 400, "A string in the trace is over 64 KiB; this is not a profiler trace gpulab can read.") \
  X(LAB_E_DOCTOR_GZIP_BOMB, "doctor_gzip_bomb", 413, "The .gz file inflates far more than any trace does; give the trace itself.") \
  X(LAB_E_DOCTOR_TOO_LARGE, "doctor_too_large", 413, "The trace is larger than the server reads in one request; read it in the page (#doctor), which reads it locally.") \
  X(LAB_E_DOCTOR_BAD_GZIP, "doctor_bad_gzip", 400, "The .gz file is damaged or cut short; copy it again or give the plain .json.") \
  X(LAB_E_KIT_TOO_LARGE, "kit_too_large", 413, "Give the file the measurement kit wrote, unchanged: it is never more than 1 MiB.") \
  X(LAB_E_KIT_NOT_JSON, "kit_not_json", 400, "Give the JSON file the measurement kit wrote (python3 measure.py --out FILE), whole: this one is not JSON or was cut short.") \
  X(LAB_E_KIT_INVALID, "kit_invalid", 400, "Run the measurement kit again (python3 measure.py --out FILE) and give its file unchanged.") \
  X(LAB_E_PLAN_UNSUPPORTED, "plan_unsupported_model", 400, "Plan a dense GPT-2, Llama/Mistral or BERT transformer or the small conv net: a preset, the model flags, or its config.json.") \
  X(LAB_E_NOMEM, "out_of_memory", 500, "The server ran out of host memory; try again later.") \
  X(LAB_E_INTERNAL, "internal", 500, "This is a bug in gpulab; please report it.")

typedef enum lab_err {
#define LAB_X_ENUM(id, code, status, advice) id,
  LAB_ERRORS(LAB_X_ENUM)
#undef LAB_X_ENUM
  LAB_ERR_COUNT
} lab_err;

typedef struct lab_error {
  lab_err code;
  char param[48];    /* the parameter at fault, "" if none */
  char message[320]; /* what was wrong and what to do */
} lab_error;

const char *lab_err_code(lab_err e);   /* "invalid_param" */
int lab_err_http_status(lab_err e);    /* 400 */
const char *lab_err_advice(lab_err e); /* default "what to do" sentence */
/* Looks a code string up; returns LAB_E_INTERNAL for an unknown one. */
lab_err lab_err_from_code(const char *code);

/* Records an error; returns -1 so callers can write `return lab_fail(...)`.
 * A NULL fmt uses the table's advice. err may be NULL. */
int lab_fail(lab_error *err, lab_err code, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* {"error":{"code":…,"message":…,"param":…}}; caller owns the result. */
cJSON *lab_error_json(const lab_error *err);
/* Parses an error envelope back (from the worker); returns 0 on success. */
int lab_error_from_json(const cJSON *json, lab_error *err);

#endif
