/* One renderer per experiment (the table in lab/face/experiments.h):
 * wasm/render/result_STEM.c defines ui_result_STEM, which draws the charts
 * and tables of one envelope (the frame around it is result.c's). */
#ifndef UI_RESULT_STEM_H
#define UI_RESULT_STEM_H

#include "cjson_compat.h"
#include "html.h"

/* The head of wasm/render/result_STEM.c's renderer, written once: that file
 * defines `UI_RESULT_RENDERER(STEM) { … }` after declaring it the same way, and
 * result.c declares every one from the table. This header does not include
 * the table, so a new table line rebuilds the dispatch, not every renderer. */
#define UI_RESULT_RENDERER(stem) void ui_result_##stem(ui_buf *b, const cJSON *env)

#endif
