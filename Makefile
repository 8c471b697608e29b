# gpulab — build, test and run. `make help` lists the targets; the probes
# below say what was found and what will be built (`make probe`).
SHELL := /bin/bash
.DEFAULT_GOAL := all

HOST ?= 127.0.0.1
PORT ?= 8080
SAN ?= 0
NO_CUDA ?= 0
CUDA_HOME ?= /usr/local/cuda
# Turing (T4, sm_75), Ampere (A100, RTX 30, A10G, sm_80: also runs on 8.6/8.9
# GPUs such as the L4 and RTX 4090), Hopper (sm_90), and compute_90 PTX that
# newer GPUs compile when they load it. CUDA 13 cannot target older GPUs
# (Volta, sm_70): the device check says so on such a machine.
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

ifeq ($(SAN),1)
BUILD ?= build-san
else
BUILD ?= build
endif

# ---- probes -----------------------------------------------------------------
NVCC := $(if $(filter 1,$(NO_CUDA)),,$(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; }))
EMCC_NAME ?= emcc
EMCC := $(shell command -v $(EMCC_NAME) 2>/dev/null)
HAVE_CHECK := $(shell pkg-config --exists check 2>/dev/null && echo 1)
HAVE_CIVETWEB := $(shell test -f /usr/include/civetweb.h && echo 1)
HAVE_CJSON := $(shell test -f /usr/include/cjson/cJSON.h && echo 1)
HAVE_MD4C := $(shell pkg-config --exists md4c 2>/dev/null && echo 1)
HAVE_CJSON_SRC := $(shell test -f third_party/cjson/cJSON.c && echo 1)
HAVE_NODE := $(shell command -v node >/dev/null 2>&1 && echo 1)
HAVE_CHROMIUM := $(shell test -x /usr/bin/chromium && echo 1)
HAVE_OPENBLAS := $(shell pkg-config --exists openblas 2>/dev/null && echo 1)
HAVE_LIBPQ := $(shell pkg-config --exists libpq 2>/dev/null && echo 1)
MODE := $(if $(NVCC),cuda,cpu)

# ---- flags ------------------------------------------------------------------
WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror
# Every stack frame small: CivetWeb threads have about 100 KiB of stack and
# the browser's wasm stack 64 KiB. (Not in the sanitizer build, whose
# redzones make frames larger on purpose.)
FRAME_LIMIT := -Wframe-larger-than=16384
# The server's rooms (docs/architecture.md): one -I each, so a header is
# named alone wherever it lives.
SERVER_ROOMS := server server/http server/store server/gpu server/class server/api server/cli
SERVER_INC := $(addprefix -I,$(SERVER_ROOMS))
# The core's rooms, the same way (docs/architecture.md, "Rooms of the
# core"): base below everything, the simulator's model, the face the other
# layers include, the experiments, the readers and the quiz, and the rooms
# of the planner and of a learner's own run.
LAB_ROOMS := lab/base lab/sim lab/face lab/experiments lab/trace lab/quiz lab/explain lab/doctor lab/plan lab/compare
LAB_INC := $(addprefix -I,$(LAB_ROOMS))
CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $(LAB_INC) -Ikernels $(SERVER_INC) $(shell pkg-config --cflags libpq 2>/dev/null)
# gpulab (server + CLI) links no CUDA: cuBLAS's thread-local storage does not
# fit CivetWeb's 100 KiB thread stacks. gpulab-worker owns the GPU.
# SQLite and libpq (the class store: one machine, or PostgreSQL shared by a
# cluster) and libcrypto (SHA-256 of session tokens): gpulab and the unit
# tests only; the GPU worker process needs none of them. zlib gzips the
# API's answers (server/http/gzip_body.c).
LDLIBS := -lcivetweb -lcjson -lsqlite3 -lpq -lcrypto -lz -lm -lpthread -ldl
WORKER_LDLIBS := -lcjson -lm -lpthread -ldl
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
CFLAGS += $(FRAME_LIMIT)
endif
ifeq ($(MODE),cuda)
# The CUDA runtime's version the worker links (cudart_static), for the
# device check on a machine with no driver, which does not start the worker.
CUDART_VERSION := $(shell sed -n 's/^\#define CUDART_VERSION *\([0-9]*\).*/\1/p' $(CUDA_HOME)/include/cuda_runtime_api.h 2>/dev/null)
CFLAGS += -DGPULAB_CUDA=1 -DGPULAB_CUDART_VERSION=$(or $(CUDART_VERSION),0)
NVCCFLAGS := -O2 -std=c++17 $(CUDA_ARCH) $(LAB_INC) -Ikernels -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
WORKER_LDLIBS += -L$(CUDA_HOME)/lib64 -lcudart_static -lcublas -lrt -lstdc++ -Wl,-rpath,$(CUDA_HOME)/lib64
endif

# ---- sources ----------------------------------------------------------------
# The CPU sgemm crossover times (lab/sim/cpu_gemm.h): OpenBLAS natively when
# installed (opened with dlopen at run time, never linked: see
# lab/sim/cpu_gemm/blas.c), the SIMD kernel otherwise and always in the browser.
CPU_GEMM_NATIVE := $(if $(HAVE_OPENBLAS),lab/sim/cpu_gemm/blas.c,lab/sim/cpu_gemm/loop.c)
lab_src = $(foreach r,$(1),$(wildcard $(r)/*.c))
LAB_SRC := $(call lab_src,$(LAB_ROOMS)) $(CPU_GEMM_NATIVE)
LAB_HDR := $(foreach r,$(LAB_ROOMS),$(wildcard $(r)/*.h))
# What each browser module compiles of lab/, by room: the simulation
# module the simulators' rooms, the planner (lab/plan, for #plan) and a
# learner's own run beside them (lab/compare/: the page's #yours import
# needs the simulators); the UI module the simulators' rooms (their
# simulators left out by LAB_NO_SIMULATORS) with the trace export and the
# quiz; the reader module the two readers on the base alone.
WASM_MODEL_LAB_SRC := $(call lab_src,lab/base lab/sim lab/face lab/experiments) lab/sim/cpu_gemm/wasm.c
WASM_SIM_LAB_SRC := $(WASM_MODEL_LAB_SRC) $(call lab_src,lab/plan lab/compare)
WASM_UI_LAB_SRC := $(WASM_MODEL_LAB_SRC) $(call lab_src,lab/trace lab/quiz)
WASM_READER_LAB_SRC := $(call lab_src,lab/base lab/doctor lab/explain)
SERVER_SRC := $(foreach r,$(SERVER_ROOMS),$(wildcard $(r)/*.c))
WORKER_SRC := $(wildcard server/worker/*.c)
KERN_SRC := $(if $(filter cuda,$(MODE)),$(wildcard kernels/*.cu),kernels/none.c)
# The client's rooms (docs/architecture.md, "Rooms of the client"), one -I
# each: the platform (the bridge and main, the only Emscripten files), a
# base, charts, renderers, the report, and the pages that drive them. The
# UI module (gpulab.wasm: simulators left out by LAB_NO_SIMULATORS) is on
# the first screen; the simulation module (gpulab_sim.wasm, wasm/sim/:
# every simulator and the browser's CPU matmul) runs in a Web Worker from
# the first run on; the reader module (gpulab_reader.wasm, wasm/reader/:
# lab/doctor/ and lab/explain/, which the UI module leaves out) is loaded by
# web/reader_worker.js only when a learner gives the page a trace to read
# (#doctor), and for "Paste your error" (#explain).
WASM_UI_ROOMS := wasm/platform wasm/base wasm/chart wasm/render wasm/report wasm/pages
WASM_INC := $(addprefix -I,$(WASM_UI_ROOMS))
WASM_SRC := $(foreach r,$(WASM_UI_ROOMS),$(wildcard $(r)/*.c))
WASM_HDR := $(foreach r,$(WASM_UI_ROOMS),$(wildcard $(r)/*.h))
WASM_SIM_SRC := $(wildcard wasm/sim/*.c)
WASM_READER_SRC := $(wildcard wasm/reader/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)
LESSONS := $(wildcard lessons/*/lesson.md)

OBJ = $(BUILD)/obj
LAB_OBJ := $(LAB_SRC:%.c=$(OBJ)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(OBJ)/%.o)
WORKER_OBJ := $(WORKER_SRC:%.c=$(OBJ)/%.o)
KERN_OBJ := $(patsubst %.cu,$(OBJ)/%.o,$(KERN_SRC:%.c=$(OBJ)/%.o))
BIN := $(BUILD)/bin/gpulab
WORKER_BIN := $(BUILD)/bin/gpulab-worker
TLS_SHIM := $(BUILD)/lib/libgpulab_ssl3.so
LESSONC := $(BUILD)/bin/lessonc
CLAIMCHECK := $(BUILD)/bin/claimcheck
WEB := $(BUILD)/web
# web/app.js is not served on its own: it is written into index.html (below).
WEB_FILES := $(patsubst web/%,$(WEB)/%,$(filter-out web/app.js,$(shell find web -type f 2>/dev/null)))
# The UI module's program is written into index.html (below), not served
# as a file; its wasm is.
WASM_OUT := $(BUILD)/ui/gpulab.js
WASM_UI_WASM := $(WEB)/gpulab.wasm
WASM_SIM_OUT := $(WEB)/gpulab_sim.js
WASM_READER_OUT := $(WEB)/gpulab_reader.js
UNIT_BIN := $(BUILD)/tests/check_all
FIDELITY_BIN := $(BUILD)/tests/fidelity
PLAN_FIDELITY_BIN := $(BUILD)/tests/plan_fidelity
# The kit's envelopes drawn by the client's views (tests/kit/kit_views.c).
KIT_VIEWS_BIN := $(BUILD)/tests/kit_views

.PHONY: all help probe deps deps-run run serve test unit fidelity claims bench gpu-check record bundle clean lessons wasm web

all: probe $(BIN) $(WORKER_BIN) $(TLS_SHIM) $(LESSONC) $(CLAIMCHECK) web lessons wasm precompress $(FIDELITY_BIN) $(PLAN_FIDELITY_BIN) $(KIT_VIEWS_BIN) $(if $(HAVE_CHECK),$(UNIT_BIN))

help:
	@echo "gpulab make targets:"
	@echo "  make deps-run   install what building and serving need (toolchain, libraries, emscripten, cJSON source)"
	@echo "  make deps       install everything: deps-run + what the tests need (Check, Chromium, PostgreSQL, Slurm,"
	@echo "                  munge, HAProxy, clang, wrk, numpy, playwright-core, axe-core); both idempotent"
	@echo "  make            build everything found by the probes (see make probe)"
	@echo "  make run        deps-run + build + serve at http://\$$HOST:\$$PORT (default $(HOST):$(PORT))"
	@echo "  make test       deps + build + every test (unit, tools, API, browser, sanitizer build)"
	@echo "  make unit       build and run the unit tests (Check) only"
	@echo "  make fidelity   the simulator against published real-GPU measurements: table of ratios and checks"
	@echo "  make claims     every lesson claim (lessons/*/claims.json: the text and the quiz) on every profile it names, simulated, then against the GPU's recordings (web/recorded/)"
	@echo "  make bench      benchmarks, as ratios against a peer measured in the same run"
	@echo "  make cpu-cost   each experiment's CPU cost estimate beside the CPU its simulation takes here"
	@echo "  make gpu-check  the GPU suite (needs a usable NVIDIA GPU)"
	@echo "  make record     record real GPU runs for the offline client"
	@echo "  make bundle     self-contained build in .bundle/ (binary, libraries, web root) for a GPU machine"
	@echo "  make fuzz       every libFuzzer harness in tests/fuzz for FUZZ_S seconds (default 60) with ASan+UBSan"
	@echo "  make probe      print what was found and what will be built"
	@echo "  make clean      remove build outputs"
	@echo "Variables: NO_CUDA=1 (CPU-mode build), SAN=1 (sanitizer build in build-san/), HOST=, PORT="

probe:
	@echo "gpulab probe: mode=$(MODE) nvcc=$(or $(NVCC),none) emcc=$(or $(EMCC),none) check=$(or $(HAVE_CHECK),0)" \
	  "civetweb=$(or $(HAVE_CIVETWEB),0) cjson=$(or $(HAVE_CJSON),0) md4c=$(or $(HAVE_MD4C),0)" \
	  "cjson-src=$(or $(HAVE_CJSON_SRC),0) node=$(or $(HAVE_NODE),0) chromium=$(or $(HAVE_CHROMIUM),0)" \
	  "openblas=$(or $(HAVE_OPENBLAS),0) libpq=$(or $(HAVE_LIBPQ),0) build=$(BUILD)"
	@echo "gpulab probe: will build: server+CLI ($(MODE) mode)$(if $(and $(EMCC),$(HAVE_CJSON_SRC)), wasm client,)$(if $(HAVE_MD4C), lessons,)$(if $(HAVE_CHECK), unit tests,)"
	@$(if $(and $(HAVE_CIVETWEB),$(HAVE_CJSON),$(HAVE_LIBPQ)),true,echo "gpulab probe: civetweb, cJSON or libpq headers missing: run 'make deps'" >&2; false)

# Two sets (tools/deps.sh says which package is in which): serving needs the
# first, testing and benchmarking need both.
deps-run:
	@tools/deps.sh run

deps:
	@tools/deps.sh test

run: deps-run
	@$(MAKE) --no-print-directory all
	$(BIN) serve --host $(HOST) --port $(PORT)

serve: all
	$(BIN) serve --host $(HOST) --port $(PORT)

# The builds use every core (-j$(nproc)) unless the caller chose -j itself,
# whose job slots they then share; a plain `make test` (CI) would build one
# file at a time.
TEST_JOBS = $$(case " $$MAKEFLAGS" in *" -j"*) ;; *) echo -j$$(nproc 2>/dev/null || echo 2) ;; esac)

test: deps
	@$(MAKE) --no-print-directory $(TEST_JOBS) all
	@$(MAKE) --no-print-directory $(TEST_JOBS) SAN=1 NO_CUDA=1 all-native
	@$(MAKE) --no-print-directory $(TEST_JOBS) fuzz-bins
	@tests/run.sh build build-san

# The unit tests alone: quick, no server, no browser.
unit: all-native
	@$(if $(HAVE_CHECK),CK_FORK=yes $(UNIT_BIN),echo "make unit: Check is not installed (make deps)" >&2; false)

# The simulator against published measurements (tests/fidelity/), then the
# training planner against published training memory (tests/plan/): each
# prints its table and fails on a miss.
fidelity: $(FIDELITY_BIN) $(PLAN_FIDELITY_BIN)
	@$(FIDELITY_BIN) tests/fidelity/published.json
	@$(PLAN_FIDELITY_BIN) tests/plan/published.json $(wildcard lab/plan/*.[ch])

bench: deps
	@$(MAKE) --no-print-directory all bench-bins
	@bench/run.sh $(BUILD)

# The simulator benchmark, natively and in WebAssembly (run by node).
.PHONY: bench-bins
bench-bins: $(BUILD)/bench/sim_bench $(BUILD)/bench/cpu_cost $(BUILD)/bench/gemm_bench $(BUILD)/bench/reader_bench \
  $(if $(and $(EMCC),$(HAVE_CJSON_SRC)),$(BUILD)/bench/sim_bench.js $(BUILD)/bench/gemm_bench.js)

# The same C on both sides: the loop CPU sgemm natively too (the browser has no BLAS).
$(BUILD)/bench/sim_bench: $(OBJ)/bench/sim_bench.o $(filter-out $(OBJ)/lab/sim/cpu_gemm/%.o,$(LAB_OBJ)) $(OBJ)/lab/sim/cpu_gemm/loop.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lm

# The readers' CPU per MiB (explain per recogniser, doctor plain and gzip)
# beside memchr and zlib's inflate on the same bytes.
$(BUILD)/bench/reader_bench: $(OBJ)/bench/reader_bench.o $(OBJ)/server/api/doctor_stream.o $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lz -lm -ldl -lpthread

# The SIMD sgemm kernel beside the naive loop, natively and in WebAssembly.
GEMM_BENCH_SRC := bench/gemm_bench.c lab/sim/matmul_cpu.c lab/base/clock.c lab/base/rng.c lab/base/stats.c
$(BUILD)/bench/gemm_bench: $(GEMM_BENCH_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lm

$(BUILD)/bench/gemm_bench.js: $(GEMM_BENCH_SRC)
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_CFLAGS) $^ -s ENVIRONMENT=node -s ALLOW_MEMORY_GROWTH=1 -o $@

# The CPU cost estimates against the process CPU each simulation takes
# here, with the native CPU sgemm a server runs (`make cpu-cost`).
$(BUILD)/bench/cpu_cost: $(OBJ)/bench/cpu_cost.o $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lm

.PHONY: cpu-cost
cpu-cost: $(BUILD)/bench/cpu_cost
	@$(BUILD)/bench/cpu_cost

$(BUILD)/bench/sim_bench.js: bench/sim_bench.c $(WASM_SIM_LAB_SRC) third_party/cjson/cJSON.c
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_CFLAGS) $^ -s ENVIRONMENT=node -s ALLOW_MEMORY_GROWTH=1 -o $@

gpu-check: all
	@tests/gpu/run.sh $(BUILD)

record: all
	@tools/record.sh $(BUILD)

bundle: all
	@tools/bundle.sh $(BUILD) .bundle

.PHONY: all-native
all-native: $(BIN) $(WORKER_BIN) $(TLS_SHIM) $(LESSONC) $(CLAIMCHECK) lessons $(FIDELITY_BIN) $(PLAN_FIDELITY_BIN) $(KIT_VIEWS_BIN) $(if $(HAVE_CHECK),$(UNIT_BIN))

# ---- native objects ---------------------------------------------------------

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# The OpenAPI document is built into the server (.incbin in openapi.c).
$(OBJ)/server/api/openapi.o: server/api/openapi.json

$(BIN): $(LAB_OBJ) $(SERVER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS) -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/../lib'

# Debian's civetweb 1.15 was built for OpenSSL 1.1 and looks up one symbol
# OpenSSL 3 no longer exports; the server loads this shim before TLS starts.
$(TLS_SHIM): server/tls_shim/ssl3_shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(WARN) -shared -fPIC -Wl,-soname,libssl.so -o $@ $< -Wl,--no-as-needed -l:libssl.so.3

$(WORKER_BIN): $(LAB_OBJ) $(WORKER_OBJ) $(KERN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(WORKER_LDLIBS) -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/../lib'

$(LESSONC): $(patsubst %.c,$(OBJ)/%.o,$(wildcard tools/*.c)) $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lmd4c-html -lmd4c -lcjson -lm

# The lesson claims runner (tools/claims/): the lesson compiler's parts
# without its main, and the simulator. It travels in the bundle (make
# bundle) to check the claims on a real GPU, hence the $ORIGIN rpath.
$(CLAIMCHECK): $(patsubst %.c,$(OBJ)/%.o,$(wildcard tools/claims/*.c)) $(filter-out $(OBJ)/tools/lessonc.o,$(patsubst %.c,$(OBJ)/%.o,$(wildcard tools/*.c))) $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lmd4c-html -lmd4c -lcjson -lm -ldl -lpthread -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/../lib'
$(OBJ)/tools/claims/%.o: CFLAGS += -Itools

# Every claim of every lesson on every profile it names, simulated
# (lessons/README.md, "claims.json"); a failure names the lesson or quiz line.
claims: $(CLAIMCHECK) lessons
	@$(CLAIMCHECK) $(BUILD)/claims.json
	@$(CLAIMCHECK) --recorded web/recorded $(BUILD)/claims.json

# The browser client's plain-C files (all but the Emscripten bridge and the
# wasm main) are also compiled natively, so the unit tests render its views
# and drive its logic through a fake bridge (tests/unit/check_ui_app.c).
UI_SRC := $(filter-out wasm/platform/bridge.c wasm/platform/main.c,$(WASM_SRC)) wasm/sim/sim_run.c wasm/sim/plan_run.c wasm/sim/kit_run.c
UI_OBJ := $(UI_SRC:%.c=$(OBJ)/%.o)
$(UI_OBJ): CFLAGS += $(WASM_INC) -Iwasm/sim
$(OBJ)/tests/unit/check_ui_%.o: CFLAGS += $(WASM_INC) -Iwasm/sim

# Test code runs on the main thread's 8 MiB stack: the frame limit is for the program.
$(UNIT_SRC:%.c=$(OBJ)/%.o): CFLAGS += -Wno-frame-larger-than

$(UNIT_BIN): $(UNIT_SRC:%.c=$(OBJ)/%.o) $(LAB_OBJ) $(filter-out $(OBJ)/server/main.o,$(SERVER_OBJ)) $(UI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $$(pkg-config --libs check) $(LDLIBS)

# The kit's envelopes drawn by the client's views (tests/kit/kit_views.c),
# run by tests/tools/kit.sh on the kit's own runs.
VIEW_SRC := wasm/base/html.c wasm/base/json_get.c wasm/render/gpu_panel.c $(wildcard wasm/render/result*.c wasm/chart/*.c)
$(OBJ)/tests/kit/kit_views.o: CFLAGS += $(WASM_INC) -Wno-frame-larger-than
$(KIT_VIEWS_BIN): $(OBJ)/tests/kit/kit_views.o $(LAB_OBJ) $(VIEW_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lm -ldl -lpthread

$(FIDELITY_BIN): $(OBJ)/tests/fidelity/fidelity.o $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lm

$(PLAN_FIDELITY_BIN): $(OBJ)/tests/plan/plan_fidelity.o $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lcjson -lm

# ---- web root, lessons, wasm ------------------------------------------------
web: $(WEB_FILES) $(WEB)/measure.py $(WEB)/measure.ipynb

# The measurement kit, served for download (/measure.py), and the same as a
# notebook for Colab and Kaggle (/measure.ipynb), built from it so the two
# never differ (docs/measure.md).
$(WEB)/measure.py: kit/measure.py
	@mkdir -p $(dir $@)
	cp $< $@
$(WEB)/measure.ipynb: kit/measure.py tools/kit_notebook.py
	@mkdir -p $(dir $@)
	python3 tools/kit_notebook.py $< $@

$(WEB)/%: web/%
	@mkdir -p $(dir $@)
	cp $< $@

# The style sheet is served without its comments (they say why a rule is
# there, for whoever edits web/style.css): 1.6 KB of a first visit's
# brotli bytes (tests/e2e/light.test.mjs holds the budget).
$(WEB)/style.css: web/style.css
	@mkdir -p $(dir $@)
	perl -0pe 's{/\*.*?\*/}{}gs; s/\n[ \t]*(?=\n)//g' $< > $@

# The page carries what its first screen needs (web/index.html says why):
# the lesson index and the first lesson as JSON data blocks ("</" written
# "<\/" and "<!--" "<\u0021--", the same JSON, so no data can end its
# block or change how the parser reads it), the UI module's program and
# web/app.js as inline scripts (a script that held "</script" or "<!--"
# would end early or be read otherwise, so that is refused); app.js
# without its whole-line comments (2 KB of a first visit's brotli bytes:
# they are for whoever edits it).
WASM_PAGE_OUT := $(if $(and $(EMCC),$(HAVE_CJSON_SRC)),$(WASM_OUT))
JSON_IN_PAGE := sed 's|</|<\\/|g; s|<!--|<\\u0021--|g'
$(WEB)/index.html: web/index.html web/app.js $(WEB)/lessons/index.json $(WASM_PAGE_OUT)
	@mkdir -p $(dir $@)
	@for f in web/app.js $(WASM_PAGE_OUT); do \
	  if grep -qiE '</script|<!--' $$f; then echo "$$f must not contain </script or <!-- (it is written into index.html)" >&2; exit 1; fi; done
	id=$$(sed -n 's/^[[:space:]]*"id":[[:space:]]*"\([a-z0-9-]*\)".*/\1/p' $(WEB)/lessons/index.json | head -n 1); \
	{ printf '  <script type="application/json" data-url="/lessons/index.json">'; $(JSON_IN_PAGE) $(WEB)/lessons/index.json; \
	  printf '</script>\n'; \
	  if [ -n "$$id" ]; then printf '  <script type="application/json" data-url="/lessons/%s.json" data-first-lesson>' "$$id"; \
	    $(JSON_IN_PAGE) $(WEB)/lessons/$$id.json; printf '</script>\n'; fi; } > $@.data && \
	grep -vE '^[[:space:]]*//' web/app.js > $@.app && \
	awk -v data=$@.data -v program="$(WASM_PAGE_OUT)" -v app=$@.app \
	  '/<!-- gpulab:data -->/ { while ((getline line < data) > 0) print line; next } \
	   /<!-- gpulab:program -->/ { if (program != "") { print "  <script>"; while ((getline line < program) > 0) print line; print "  </script>" } next } \
	   /<!-- gpulab:app -->/ { print "  <script>"; while ((getline line < app) > 0) print line; print "  </script>"; next } \
	   { print }' $< > $@.tmp && rm -f $@.data $@.app && mv $@.tmp $@

lessons: $(WEB)/lessons/index.json

$(WEB)/lessons/index.json: $(LESSONC) $(wildcard lessons/*/*)
	@mkdir -p $(WEB)/lessons $(BUILD)/lessons
	$(LESSONC) --web $(WEB)/lessons --keys $(BUILD)/lessons --claims $(BUILD)/claims.json $(dir $(LESSONS))

# -msimd128: WebAssembly SIMD, for crossover's CPU kernel (lab/sim/matmul_cpu.c).
WASM_CFLAGS := -std=c11 -O2 -msimd128 $(WARN) $(FRAME_LIMIT) -Wno-missing-prototypes -DGPULAB_CJSON_LOCAL $(LAB_INC) -Ithird_party/cjson
# DYNAMIC_EXECUTION=0: no eval/new Function in gpulab.js, as the page's CSP allows none.
WASM_LDFLAGS := -s MODULARIZE=1 -s EXPORT_NAME=createGpulab -s ALLOW_MEMORY_GROWTH=1 -s ENVIRONMENT=web,worker \
  -s DYNAMIC_EXECUTION=0 \
  -s EXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,stringToUTF8,lengthBytesUTF8 \
  -s EXPORTED_FUNCTIONS=_main,_malloc,_free

wasm: $(if $(and $(EMCC),$(HAVE_CJSON_SRC)),$(WASM_OUT) $(WASM_UI_WASM) $(WASM_SIM_OUT) $(WASM_READER_OUT))

# The page's client is built for size (-Oz): its wasm is most of a first
# visit's bytes (137 KB brotli at -O2, 126 KB at -Oz). -flto and emmalloc
# (a smaller allocator; the page allocates little) took 2.4 KB more off
# it (108,120 -> 105,696 B brotli, measured when #yours and #plan joined). The simulator
# benchmark (bench/sim_bench.c) keeps -O2. The explainer (lab/explain/,
# 13 KB brotli) is not compiled in: #explain asks the reader module's worker.
$(WASM_OUT): $(WASM_SRC) $(WASM_UI_LAB_SRC) $(LAB_HDR) $(WASM_HDR) third_party/cjson/cJSON.c
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_CFLAGS) $(WASM_INC) -Oz -flto -DLAB_NO_SIMULATORS -Wno-unused-function \
	  $(WASM_SRC) $(WASM_UI_LAB_SRC) third_party/cjson/cJSON.c \
	  -Wno-error=unused-command-line-argument $(WASM_LDFLAGS) -s MALLOC=emmalloc -o $@
$(WASM_UI_WASM): $(WASM_OUT)
	@mkdir -p $(dir $@)
	cp $(<:.js=.wasm) $@

# The simulation module, loaded by web/sim_worker.js on the first
# simulation: built for speed (-O2), as the simulators are timed against
# their native build (make bench).
WASM_SIM_LDFLAGS := -s MODULARIZE=1 -s EXPORT_NAME=createGpulabSim -s ALLOW_MEMORY_GROWTH=1 -s ENVIRONMENT=worker \
  -s DYNAMIC_EXECUTION=0 -s EXPORTED_RUNTIME_METHODS=ccall,UTF8ToString \
  -s EXPORTED_FUNCTIONS=_gpulab_sim_run,_gpulab_sim_text,_gpulab_kit_compare,_malloc,_free
$(WASM_SIM_OUT): $(WASM_SIM_SRC) $(WASM_SIM_LAB_SRC) $(LAB_HDR) $(wildcard wasm/sim/*.h) third_party/cjson/cJSON.c
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_CFLAGS) -Iwasm/sim $(WASM_SIM_SRC) $(WASM_SIM_LAB_SRC) third_party/cjson/cJSON.c \
	  -Wno-error=unused-command-line-argument $(WASM_SIM_LDFLAGS) -o $@

# The reader module, loaded by web/reader_worker.js when the learner gives
# #doctor a trace (or opens #explain, whose pastes it explains): -O2, as it
# reads traces of hundreds of MB in the browser (make bench times it,
# bench/doctor_bench.py). It compiles the two readers' rooms and the base
# they stand on, nothing else of lab/.
WASM_READER_LDFLAGS := -s MODULARIZE=1 -s EXPORT_NAME=createGpulabReader -s ALLOW_MEMORY_GROWTH=1 -s ENVIRONMENT=worker \
  -s DYNAMIC_EXECUTION=0 -s EXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8 \
  -s EXPORTED_FUNCTIONS=_gpulab_doctor_begin,_gpulab_doctor_feed,_gpulab_doctor_inflated,_gpulab_doctor_gzip_failed,_gpulab_doctor_end,_gpulab_doctor_text,_gpulab_explain,_gpulab_explain_text,_malloc,_free
$(WASM_READER_OUT): $(WASM_READER_SRC) $(WASM_READER_LAB_SRC) $(LAB_HDR) third_party/cjson/cJSON.c
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_CFLAGS) $(WASM_READER_SRC) $(WASM_READER_LAB_SRC) third_party/cjson/cJSON.c \
	  -Wno-error=unused-command-line-argument $(WASM_READER_LDFLAGS) -o $@

# Static files precompressed (FILE.gz, FILE.br) for the server to send to
# clients that accept them; incremental, after everything in the web root.
.PHONY: precompress
precompress: web lessons wasm
	@tools/compress.sh $(WEB)

# ---- fuzzing (libFuzzer) -----------------------------------------------------
# Each harness tests/fuzz/fuzz_NAME.c is linked with lab/ and the files in
# FUZZ_SRC_NAME, built by clang with ASan+UBSan into $(FUZZ_BUILD).
# `make fuzz` runs each for FUZZ_S seconds from its seed corpus
# (tests/fuzz/corpus/NAME) and fails on any crash, leak or timeout;
# `make test` replays the seed corpora only (tests/fuzz/run.sh).
FUZZ_CC ?= clang
FUZZ_S ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) $(LAB_INC) $(SERVER_INC) -Itools $(WASM_INC) -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_LAB_OBJ := $(LAB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_SRC_fuzz_json_body := server/http/http.c server/http/csp.c server/http/request_id.c server/http/gzip_body.c \
  server/http/client_addr.c server/http/conn_socket.c server/http/conn_gate.c server/http/conn_limit.c
FUZZ_LIB_fuzz_json_body := -lcivetweb -lz
FUZZ_SRC_fuzz_class_config := server/class/config.c server/files.c server/store/store_common.c
FUZZ_SRC_fuzz_lesson_md := tools/lesson_md.c tools/lesson_table.c tools/lesson_words.c
FUZZ_LIB_fuzz_lesson_md := -lmd4c-html -lmd4c
FUZZ_SRC_fuzz_lesson_quiz := tools/lesson_jsonpos.c tools/lesson_report.c
FUZZ_SRC_fuzz_envelope_view := wasm/base/html.c wasm/base/json_get.c wasm/render/gpu_panel.c \
  $(wildcard wasm/render/result*.c wasm/chart/*.c)
# Probed when used: clang with its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
HAVE_LIBFUZZER = $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return (int)(d && n) * 0; }\n' \
  | $(FUZZ_CC) -x c -fsanitize=fuzzer,address -o /dev/null - 2>/dev/null && echo 1)

.PHONY: fuzz fuzz-bins
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-bins
	@tests/fuzz/run.sh explore $(FUZZ_BUILD) $(FUZZ_S)

fuzz-bins:
	@$(if $(HAVE_LIBFUZZER),$(MAKE) --no-print-directory fuzz-harnesses,\
	  echo "gpulab probe: $(FUZZ_CC) with libFuzzer not found: fuzz harnesses not built (make deps installs clang)")

.PHONY: fuzz-harnesses
fuzz-harnesses: $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

define FUZZ_HARNESS
$(FUZZ_BUILD)/$(1): $(FUZZ_BUILD)/obj/tests/fuzz/$(1).o $(FUZZ_LAB_OBJ) $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_SRC_$(1)))
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $$^ -o $$@ $(FUZZ_LIB_$(1)) -lcjson -lm -lpthread
endef
$(foreach h,$(FUZZ_NAMES),$(eval $(call FUZZ_HARNESS,$(h))))

clean:
	rm -rf build build-san build-fuzz .bundle

# `make print-CFLAGS`: a variable's value, for the tools tests.
print-%:
	@echo '$($*)'

-include $(shell find $(BUILD)/obj $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
