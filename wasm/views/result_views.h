/* One renderer per experiment, declared from the table in lab/experiments.h:
 * wasm/views/result_STEM.c defines ui_result_STEM, which draws the charts
 * and tables of one envelope (the frame around it is result.c's). */
#ifndef UI_RESULT_VIEWS_H
#define UI_RESULT_VIEWS_H

#include "cjson_compat.h"
#include "experiments.h"
#include "html.h"

#define UI_X_VIEW_DECL(stem, kern) void ui_result_##stem(ui_buf *b, const cJSON *env);
LAB_EXPERIMENTS(UI_X_VIEW_DECL)
#undef UI_X_VIEW_DECL

#endif
