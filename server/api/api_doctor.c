/* POST /api/doctor: gpulab doctor (lab/doctor/doctor.h) on a profiler trace sent
 * as the body (application/json, or application/gzip for a .json.gz), at
 * most 32 MiB, as a reader run (reader_run.h: bounded uploads, a 300 s
 * deadline, the CPU budget). The body is streamed into the reader as it
 * arrives, a chunk at a time (doctor_stream.h), never held whole; it is
 * read, analysed and dropped: never stored, never logged. Answers the
 * envelope `gpulab doctor --json` prints. */
#include "api.h"
#include "doctor_stream.h"
#include "reader_run.h"

static size_t from_upload(void *in, unsigned char *buf, size_t cap) { return srv_reader_next(in, buf, cap); }
/* JSON read per request, a .gz's inflated bytes: the body limit times 32,
 * above the highest ratio of a real trace (30.3, docs/doctor.md), so every
 * real trace the body limit lets in is read and a bomb costs at most this. */
#define SRV_DOCTOR_MAX_TRACE (1024.0 * 1024 * 1024)

static cJSON *read_trace(srv_reader_input *in, lab_error *err) { return srv_doctor_stream_capped(from_upload, in, SRV_DOCTOR_MAX_TRACE, err); }

static const char *const types[] = {"application/json", "application/gzip", NULL};
static const srv_reader_route doctor_route = {
    .what = "trace",
    .page = "#doctor",
    .types = types,
    .types_text = "application/json (or a .json.gz as application/gzip)",
    .type_required = 1,
    .max_body_bytes = 32u * 1024 * 1024,
    .too_large = LAB_E_BODY_TOO_LARGE,
    .deadline_s = SRV_READER_DEADLINE_MAX_S,
    .read = read_trace,
};

int srv_api_doctor(struct mg_connection *conn, void *app) { return srv_reader_run(conn, app, &doctor_route); }
