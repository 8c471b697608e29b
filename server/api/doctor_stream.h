/* gpulab doctor over a stream of bytes, plain or gzip (doctor_stream.c). */
#ifndef SRV_DOCTOR_STREAM_H
#define SRV_DOCTOR_STREAM_H

#include <stddef.h>

#include "cjson_compat.h"
#include "doctor.h"

/* Reads up to cap bytes into buf; 0 at the end (or on a failure to read). */
typedef size_t (*srv_doctor_read_fn)(void *src, unsigned char *buf, size_t cap);

/* lab_doctor_finish's envelope for the whole stream, or NULL with err set
 * (the doctor's codes, doctor_bad_gzip, doctor_gzip_bomb, out_of_memory). */
cJSON *srv_doctor_stream(srv_doctor_read_fn read, void *src, lab_error *err);
/* The same, reading at most max_bytes of trace JSON (a .gz's inflated
 * bytes): past it, doctor_too_large (lab_doctor_size_check). */
cJSON *srv_doctor_stream_capped(srv_doctor_read_fn read, void *src, double max_bytes, lab_error *err);

#endif
