/* The doctor's rules for a .gz trace, shared by whoever inflates it: zlib
 * in the server and the CLI (server/api/doctor_stream.c), the browser's
 * DecompressionStream in the page's reader (wasm/reader/). No zlib here:
 * the same limits and the same words, wherever the inflating happens. */
#include "doctor.h"

#define BOMB_FLOOR (64.0 * 1024 * 1024)

int lab_doctor_gzip_check(double in_bytes, double out_bytes, lab_error *err) {
  if (out_bytes > BOMB_FLOOR && out_bytes > LAB_DOCTOR_GZIP_MAX_RATIO * in_bytes)
    return lab_fail(err, LAB_E_DOCTOR_GZIP_BOMB, NULL,
                    "The .gz inflated to %.0f MiB from %.0f KiB (over %d times): a gzip bomb, not a trace.",
                    out_bytes / 1048576, in_bytes / 1024, LAB_DOCTOR_GZIP_MAX_RATIO);
  return 0;
}

int lab_doctor_size_check(double trace_bytes, double cap_bytes, lab_error *err) {
  if (trace_bytes > cap_bytes)
    return lab_fail(err, LAB_E_DOCTOR_TOO_LARGE, NULL,
                    "The trace is over %.0f MiB once inflated: the server reads at most that much of one trace. Read "
                    "it in the page (Read your profile, #doctor), which reads it in your browser with nothing "
                    "uploaded, or with gpulab doctor FILE.",
                    cap_bytes / 1048576);
  return 0;
}

int lab_doctor_gzip_fail(double in_bytes, int cut_short, const char *why, lab_error *err) {
  if (cut_short)
    return lab_fail(err, LAB_E_DOCTOR_BAD_GZIP, NULL, "The .gz file ends early after %.0f bytes: it was cut short.",
                    in_bytes);
  return lab_fail(err, LAB_E_DOCTOR_BAD_GZIP, NULL, "The .gz data is damaged after %.0f compressed bytes (%s).", in_bytes,
                  why && why[0] ? why : "inflate failed");
}
