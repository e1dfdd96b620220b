# mapprof - one non-recursive GNU Makefile.  'make help' lists the targets.

CC         ?= cc
OMPCC      ?= clang-19
LLVM_DIR   ?= /usr/lib/llvm-19
# Offload target of the samples: x86_64-pc-linux-gnu (host offload, default),
# nvptx64-nvidia-cuda (CUDA toolkit) or amdgcn-amd-amdhsa (ROCm).
OFFLOAD_TARGET ?= x86_64-pc-linux-gnu
PREFIX     ?= /usr/local
# The build directory; a sanitized build gets its own unless B= is given
# (objects built with and without sanitizers must not mix).
ifeq ($(origin B),undefined)
B          := $(if $(SANITIZE),build-san,build)
endif

VERSION    := 0.1.0
WARN       := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wvla -Wformat=2
ifeq ($(CI),true)
WARN       += -Werror
endif
CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 $(WARN) -MMD -MP -I. -I$(B)/gen -DMAPPROF_VERSION='"$(VERSION)"'
# SANITIZE=address,undefined: mapprof, the unit tests and the tools get every
# sanitizer named.  The collector and libmapprof-ingest are dlopen'ed into the
# profiled program, which is not sanitized: ASan (and LSan, TSan, MSan) must
# be the first library of a process, so those two libraries get only the rest
# (UBSan, whose runtime loads late).  See docs/testing.md.
comma      := ,
empty      :=
space      := $(empty) $(empty)
ifneq ($(SANITIZE),)
CFLAGS     += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZE)
LIB_SANITIZE := $(subst $(space),$(comma),$(strip $(filter-out address kernel-address hwaddress leak thread memory,$(subst $(comma),$(space),$(SANITIZE)))))
# clang links no sanitizer runtime into a shared library unless told to, and
# its shared runtime is in clang's own directory, which ld.so does not search.
ifneq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),)
LIB_SANITIZE_RT := -shared-libsan -Wl,-rpath,$(dir $(shell $(CC) \
	-print-file-name=libclang_rt.ubsan_standalone-$(shell uname -m).so))
endif
endif
# CFLAGS and LDFLAGS of the code loaded into the profiled program.
LIB_CFLAGS  = $(filter-out -fsanitize=%,$(CFLAGS))$(if $(LIB_SANITIZE), -fsanitize=$(LIB_SANITIZE))
LIB_LDFLAGS = $(filter-out -fsanitize=%,$(LDFLAGS))$(if $(LIB_SANITIZE), -fsanitize=$(LIB_SANITIZE) $(LIB_SANITIZE_RT))

PKGS       := sqlite3 jansson libdw libxxhash
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
SQLITE_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null)
XXH_LIBS   := $(shell pkg-config --libs libxxhash 2>/dev/null)
# otf2: Debian's libotf2 (libotf2-trace-dev) writes 'mapprof trace -o run.otf2'.
REPORT_LIBS := $(shell pkg-config --libs sqlite3 jansson libdw libelf otf2 2>/dev/null)
# The mapprof binary links SQLite statically where libsqlite3-dev's archive is
# there (SQLITE_STATIC=0: never): loading the shared library costs about a
# million instructions at every start (its relocations; about 0.3 ms of each
# 'mapprof record'), the archive a tenth of that.  The collector never links
# SQLite; libmapprof-ingest.so links it shared.
SQLITE_STATIC ?= 1
SQLITE_ARCHIVE := $(if $(filter 1,$(SQLITE_STATIC)),$(wildcard $(shell pkg-config --variable=libdir sqlite3 2>/dev/null)/libsqlite3.a))
# So do its other libraries (jansson, libdw, libelf, otf2 and the compressors
# libdw reads with) where every archive is there (LIBS_STATIC=0: never;
# libbz2-dev, in DEB_PKGS, holds libbz2.a): seven shared objects loaded,
# relocated and write-protected cost about 1.3 ms of every 'mapprof record'
# on a 2-core VM, before the program can start.
LIBS_STATIC ?= 1
STATIC_PKGS := jansson libdw libelf otf2
STATIC_LDIR := $(shell pkg-config --variable=libdir libdw 2>/dev/null)
STATIC_LIBL := $(filter-out -pthread -lpthread,$(shell pkg-config --static --libs-only-l $(STATIC_PKGS) 2>/dev/null))
STATIC_MISS := $(strip $(foreach l,$(sort $(STATIC_LIBL)),$(if $(wildcard $(STATIC_LDIR)/lib$(l:-l%=%).a),,$(l))))
STATIC_ON   := -Wl,-Bstatic
STATIC_OFF  := -Wl,-Bdynamic
STATIC_USE  := $(and $(filter 1,$(LIBS_STATIC)),$(STATIC_LIBL),$(if $(STATIC_MISS),,yes))
# And then the C library too, where libc6-dev's archive is there (EXE_STATIC=0:
# never; never under SANITIZE): no loader, no relocations, no libc.so and
# libm.so to map.  On a 2-core VM 'mapprof --version' took 3.2 ms of CPU and 91
# page faults linked against the shared C library, 1.2 ms and 41 faults linked
# statically; 'mapprof record' starts the program about 1.5 ms sooner.
# lib/nodl.c stands in for dlopen() there (nothing in mapprof loads a library).
STATIC_DL   := -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose,--wrap=dlerror
EXE_STATIC  ?= 1
LIBC_ARCHIVE := $(wildcard $(shell $(CC) -print-file-name=libc.a 2>/dev/null))
STATIC_EXE  := $(and $(filter 1,$(EXE_STATIC)),$(if $(SANITIZE),,yes),$(STATIC_USE),$(SQLITE_ARCHIVE),$(filter /%,$(LIBC_ARCHIVE)))
OTHER_LIBS  := $(if $(STATIC_USE),-L$(STATIC_LDIR) $(STATIC_ON) $(STATIC_LIBL) $(STATIC_OFF) -lpthread,$(filter-out -lsqlite3,$(REPORT_LIBS)))
SQLITE_DEPS := $(filter-out -lsqlite3 $(if $(STATIC_USE),$(STATIC_LIBL)),$(shell pkg-config --static --libs-only-l sqlite3 2>/dev/null))
MAPPROF_LIBS := $(if $(SQLITE_ARCHIVE),$(SQLITE_ARCHIVE),$(SQLITE_LIBS)) $(OTHER_LIBS) $(if $(SQLITE_ARCHIVE),$(SQLITE_DEPS))
MAPPROF_LIBS_STATIC := $(filter-out $(STATIC_ON) $(STATIC_OFF),$(MAPPROF_LIBS))
CFLAGS     += $(PKG_CFLAGS)
# XXH3 is compiled in once per SIMD width (collector/xxh3_simd.c) on x86-64,
# and so is aeshash (collector/aeshash_simd.c: AES-NI, VAES 256, VAES 512).
ifeq ($(shell uname -m),x86_64)
CFLAGS     += -DMAPPROF_XXH3_X86
XXH3_SIMD_OBJS := $(B)/collector/xxh3_avx2.o $(B)/collector/xxh3_avx512.o \
	$(B)/collector/aeshash_aesni.o $(B)/collector/aeshash_vaes256.o $(B)/collector/aeshash_vaes512.o
endif
# What the content hash (collector/hash.h) links besides collector/hash.c.
HASH_OBJS := $(B)/collector/aeshash.o $(XXH3_SIMD_OBJS)
OMPT_INC   := -idirafter $(LLVM_DIR)/lib/clang/19/include

ifeq ($(V),1)
Q :=
else
Q := @
endif

all: $(B)/mapprof $(B)/libmapprof-collector.so $(B)/libmapprof-ingest.so

# --- the collector (loaded into the profiled program) ------------------------
COLLECTOR_OBJS := \
	$(B)/collector/collector.o \
	$(B)/collector/buffer.o \
	$(B)/collector/modules.o \
	$(B)/collector/runinfo.o \
	$(B)/collector/hash.o \
	$(B)/collector/wtrack.o \
	$(B)/collector/attach.o \
	$(B)/collector/check.o \
	$(B)/collector/interpose.o \
	$(B)/collector/got.o \
	$(B)/collector/output.o \
	$(B)/collector/openacc.o \
	$(B)/collector/procs.o \
	$(B)/collector/state.o \
	$(B)/collector/text.o \
	$(HASH_OBJS) \
	$(B)/db/spool/spool_pic.o \
	$(B)/lib/ranks_pic.o \
	$(B)/lib/termesc_pic.o

# Builds the database from the spool of a collector loaded by hand (opened at
# exit, so SQLite is not loaded into programs recorded by 'mapprof record').
INGEST_OBJS := \
	$(B)/db/db_pic.o \
	$(B)/db/schema_pic.o \
	$(B)/db/spool/spool_pic.o \
	$(B)/db/ingest/ingest_pic.o \
	$(B)/db/ingest/writer_pic.o \
	$(B)/db/ingest/finish_pic.o \
	$(B)/db/pages/pagewrite_pic.o \
	$(B)/db/store/locations_pic.o \
	$(B)/lib/hmap_pic.o \
	$(B)/lib/tempfile_pic.o

# TLS descriptors (gnu2): the collector's thread-local state is read without
# a call to __tls_get_addr on every event, and it still loads with dlopen.
COLLECTOR_CFLAGS := -fPIC -fvisibility=hidden -mtls-dialect=gnu2

$(B)/collector/%.o: collector/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) $(OMPT_INC) -c $< -o $@

# The OpenACC Profiling Interface's header is GCC's (libgcc-12-dev): only
# it and openacc.h, linked into a folder of their own, so that whichever
# compiler builds the collector finds them and nothing else of GCC's.
ACC_PROF_H := $(shell gcc -print-file-name=include/acc_prof.h 2>/dev/null)

$(B)/gen/acc/acc_prof.h:
	@mkdir -p $(@D)
	$(Q)test -f '$(ACC_PROF_H)' || { echo "mapprof: error: GCC's acc_prof.h not found: install libgcc-12-dev (make deps)" >&2; exit 1; }
	$(Q)ln -sf '$(ACC_PROF_H)' $@ && ln -sf '$(dir $(ACC_PROF_H))openacc.h' $(@D)/openacc.h

$(B)/collector/openacc.o: collector/openacc.c $(B)/gen/acc/acc_prof.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -isystem $(B)/gen/acc -c $< -o $@

$(B)/collector/xxh3_avx2.o: collector/xxh3_simd.c
	@mkdir -p $(@D)
	@echo "  CC      $< (avx2)"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -mavx2 -DXXH3_SIMD_NAME=mapprof_xxh3_avx2 -c $< -o $@

$(B)/collector/xxh3_avx512.o: collector/xxh3_simd.c
	@mkdir -p $(@D)
	@echo "  CC      $< (avx512)"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -mavx512f -DXXH3_SIMD_NAME=mapprof_xxh3_avx512 -c $< -o $@

$(B)/collector/aeshash_aesni.o: collector/aeshash_simd.c collector/aeshash.h
	@mkdir -p $(@D)
	@echo "  CC      $< (aes-ni)"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -maes -msse4.1 -DAESH_WIDTH=128 -DAESH_NAME=mapprof_aeshash_aesni -c $< -o $@

$(B)/collector/aeshash_vaes256.o: collector/aeshash_simd.c collector/aeshash.h
	@mkdir -p $(@D)
	@echo "  CC      $< (vaes 256)"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -maes -mvaes -mavx2 -DAESH_WIDTH=256 -DAESH_NAME=mapprof_aeshash_vaes256 -c $< -o $@

$(B)/collector/aeshash_vaes512.o: collector/aeshash_simd.c collector/aeshash.h
	@mkdir -p $(@D)
	@echo "  CC      $< (vaes 512)"
	$(Q)$(CC) $(LIB_CFLAGS) $(COLLECTOR_CFLAGS) -maes -mvaes -mavx512f -DAESH_WIDTH=512 -DAESH_NAME=mapprof_aeshash_vaes512 -c $< -o $@

# musttail (a guaranteed tail call) needs clang; see collector/interpose.c.
# Under SANITIZE, clang's -fsanitize=undefined includes 'function' on x86,
# whose handler (__ubsan_handle_function_type_mismatch) gcc's libubsan lacks,
# and it would check nothing here: every indirect call in this file goes to a
# libomptarget function, compiled without the type signature it compares.
$(B)/collector/interpose.o: collector/interpose.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(filter-out -Wformat=2,$(LIB_CFLAGS))$(if $(LIB_SANITIZE), -fno-sanitize=function) \
	  $(COLLECTOR_CFLAGS) -c $< -o $@

$(B)/db/%_pic.o: db/%.c
	@mkdir -p $(@D)
	@echo "  CC      $< (pic)"
	$(Q)$(CC) $(LIB_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/lib/%_pic.o: lib/%.c
	@mkdir -p $(@D)
	@echo "  CC      $< (pic)"
	$(Q)$(CC) $(LIB_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/db/schema_pic.o: $(B)/gen/schema.S db/schema.sql $(B)/gen/empty.db
	@mkdir -p $(@D)
	$(Q)$(CC) -fPIC -c $(B)/gen/schema.S -o $@

# nodelete: the program's GOT slots point into the collector (collector/got.c),
# so it must stay mapped even if the runtime closes its tool library.
$(B)/libmapprof-collector.so: $(COLLECTOR_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-z,defs -Wl,-z,nodelete $(LIB_LDFLAGS) $^ -o $@ -ldl -lpthread

$(B)/libmapprof-ingest.so: $(INGEST_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-z,defs $(LIB_LDFLAGS) $^ -o $@ $(SQLITE_LIBS) -lm

# --- the schema and the report assets, embedded at build time ----------------
# The schema's text, and an empty database holding it (db_create copies it).
$(B)/gen/pages/mkimage: db/pages/mkimage.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $< -o $@ $(SQLITE_LIBS)

$(B)/gen/empty.db: db/schema.sql $(B)/gen/pages/mkimage
	$(Q)$(B)/gen/pages/mkimage db/schema.sql $@

$(B)/gen/schema.S: db/schema.sql $(B)/gen/empty.db
	@mkdir -p $(@D)
	$(Q)printf '\t.section .rodata\n\t.global mapprof_schema_sql\n\t.hidden mapprof_schema_sql\nmapprof_schema_sql:\n\t.incbin "db/schema.sql"\n\t.byte 0\n\t.balign 8\n\t.global mapprof_empty_db\n\t.hidden mapprof_empty_db\nmapprof_empty_db:\n\t.incbin "$(B)/gen/empty.db"\n\t.global mapprof_empty_db_end\n\t.hidden mapprof_empty_db_end\nmapprof_empty_db_end:\n\t.section .note.GNU-stack,"",@progbits\n' > $@

# The page's script, one file per concern under static/js/, joined in this
# order into one script (the page stays one self-contained file).  The first
# file opens the script's function and the last closes it.
REPORT_JS := \
	static/js/prelude.js \
	static/js/helpers.js \
	static/js/procs.js \
	static/js/data.js \
	static/js/header.js \
	static/js/filters.js \
	static/js/table.js \
	static/js/plans.js \
	static/js/detail.js \
	static/js/baseline.js \
	static/js/kernels.js \
	static/js/checks.js \
	static/js/share.js \
	static/js/timeline.js \
	static/js/main.js

$(B)/gen/report.js: $(REPORT_JS) Makefile
	@mkdir -p $(@D)
	$(Q)cat $(REPORT_JS) > $@

ASSETS := \
	templates/report.html \
	static/report.css \
	$(B)/gen/report.js

$(B)/gen/assets.S: $(ASSETS) Makefile
	@mkdir -p $(@D)
	$(Q){ printf '\t.section .rodata\n'; \
	  for f in $(ASSETS); do n=asset_$$(basename $$f | tr '.-' '__'); \
	    printf '\t.global %s\n%s:\n\t.incbin "%s"\n\t.byte 0\n' $$n $$n $$f; done; \
	  printf '\t.section .note.GNU-stack,"",@progbits\n'; } > $@

# --- the CLI and the report stage ---------------------------------------------
# db/'s rooms (docs/architecture.md): what 'record' needs, here; what the
# report reads and stores, with the report objects below.
DB_OBJS := \
	$(B)/db/db.o \
	$(B)/db/schema.o \
	$(B)/db/spool/spool.o \
	$(B)/db/ingest/ingest.o \
	$(B)/db/ingest/writer.o \
	$(B)/db/ingest/finish.o \
	$(B)/db/ingest/process.o \
	$(B)/db/pages/pagewrite.o

# BEGIN report objects (report/, room by room, and the db/ and lib/ objects it uses)
# The rooms of report/ (docs/architecture.md): the entry point report.c, then
# attribute/, detect/, findings/, plan/, output/, trace/, compare/.
REPORT_OBJS := \
	$(B)/lib/hmap.o \
	$(B)/lib/extsort.o \
	$(B)/lib/batchq.o \
	$(B)/lib/spillmap.o \
	$(B)/lib/tempfile.o \
	$(B)/lib/outfile.o \
	$(B)/lib/ranks.o \
	$(B)/lib/termesc.o \
	$(B)/lib/units.o \
	$(B)/lib/overlap.o \
	$(B)/lib/utf8.o \
	$(B)/db/open.o \
	$(B)/db/pages/pageread.o \
	$(B)/db/pages/rowsrc.o \
	$(B)/db/pages/finding_pages.o \
	$(B)/db/store/findings.o \
	$(B)/db/store/finding_rows.o \
	$(B)/db/store/locations.o \
	$(B)/db/store/attribution.o \
	$(B)/db/store/source_files.o \
	$(B)/db/store/source_path.o \
	$(B)/db/read/events.o \
	$(B)/db/read/sound.o \
	$(B)/db/read/timeline_rows.o \
	$(B)/db/read/timeline.o \
	$(B)/db/read/kernel_sites.o \
	$(B)/db/read/checks.o \
	$(B)/db/read/threads.o \
	$(B)/db/read/acc.o \
	$(B)/db/read/nowait_sites.o \
	$(B)/db/read/trace_scan.o \
	$(B)/db/read/targets.o \
	$(B)/gen/assets.o \
	$(B)/report/report.o \
	$(B)/report/attribute/attribute.o \
	$(B)/report/attribute/symbolize.o \
	$(B)/report/attribute/flang_name.o \
	$(B)/report/attribute/dwarfline.o \
	$(B)/report/attribute/snippet.o \
	$(B)/report/attribute/safefile.o \
	$(B)/report/detect/detect.o \
	$(B)/report/detect/detect_common.o \
	$(B)/report/detect/detect_duplicate.o \
	$(B)/report/detect/detect_round_trip.o \
	$(B)/report/detect/detect_alloc.o \
	$(B)/report/detect/detect_unused_transfer.o \
	$(B)/report/detect/occurrence.o \
	$(B)/report/findings/analysis.o \
	$(B)/report/findings/checks.o \
	$(B)/report/findings/findings.o \
	$(B)/report/findings/opspill.o \
	$(B)/report/findings/totals.o \
	$(B)/report/findings/results.o \
	$(B)/report/findings/cost.o \
	$(B)/report/findings/kernels.o \
	$(B)/report/findings/findings_store.o \
	$(B)/report/findings/paths.o \
	$(B)/report/plan/plans.o \
	$(B)/report/plan/planedit.o \
	$(B)/report/plan/loopscan.o \
	$(B)/report/output/json.o \
	$(B)/report/output/html.o \
	$(B)/report/output/sarif.o \
	$(B)/report/output/summary.o \
	$(B)/report/output/unreported.o \
	$(B)/report/output/gate.o \
	$(B)/report/trace/trace.o \
	$(B)/report/trace/trace_flows.o \
	$(B)/report/trace/trace_emit.o \
	$(B)/report/trace/jsonbuf.o \
	$(B)/report/trace/pftrace.o \
	$(B)/report/trace/lanefile.o \
	$(B)/report/trace/otf2.o \
	$(B)/report/trace/trace_otf2.o \
	$(B)/report/compare/diff.o \
	$(B)/report/compare/outcome.o \
	$(B)/report/compare/repeat.o \
	$(B)/report/compare/merge.o
# END report objects

CLI_OBJS := \
	$(B)/cli/main.o \
	$(B)/cli/record.o \
	$(B)/cli/loader.o \
	$(B)/cli/record_procs.o \
	$(B)/cli/drain.o \
	$(B)/cli/util.o \
	$(B)/cli/report.o \
	$(B)/cli/report_cli.o \
	$(B)/cli/recover.o \
	$(B)/cli/report_procs.o \
	$(B)/cli/run.o \
	$(B)/cli/trace.o \
	$(B)/cli/diff.o

$(B)/db/schema.o: $(B)/gen/schema.S db/schema.sql $(B)/gen/empty.db
	@mkdir -p $(@D)
	$(Q)$(CC) -c $(B)/gen/schema.S -o $@

$(B)/gen/assets.o: $(B)/gen/assets.S
	$(Q)$(CC) -c $< -o $@

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/mapprof: $(CLI_OBJS) $(REPORT_OBJS) $(DB_OBJS) $(if $(STATIC_EXE),$(B)/lib/nodl.o)
	@echo "  LD      $@$(if $(STATIC_EXE), (static))"
	$(Q)$(CC) $(LDFLAGS) $(if $(STATIC_EXE),-static $(STATIC_DL)) $^ -o $@ $(if $(STATIC_EXE),$(MAPPROF_LIBS_STATIC),$(MAPPROF_LIBS)) -lm

# The same mapprof against the shared C library, for the one test that holds
# an open() of it with an LD_PRELOAD library (tests/e2e/report_pages_replaced.sh),
# which a static program does not load.
$(B)/tests/mapprof-dynamic: $(CLI_OBJS) $(REPORT_OBJS) $(DB_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ -o $@ $(MAPPROF_LIBS) -lm

# --- mapprof-mpi: 'mapprof report DB...' over MPI (cli/mpi_main.c) -----------
# Built by 'all' only where an MPI C compiler is found (MPICC=mpicc; Debian's
# libopenmpi-dev): mapprof itself never needs MPI.  The wrapper compiles
# with our compiler (OMPI_CC / MPICH_CC), so flags and sanitizers match.
MPICC      ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
MPI_ENV    := OMPI_CC='$(CC)' MPICH_CC='$(CC)'
MPI_OBJS   := $(B)/cli/mpi_main.o $(B)/cli/report_procs.o $(B)/cli/report_cli.o $(B)/cli/util.o
ifneq ($(HAVE_MPICC),)
all: $(B)/mapprof-mpi
endif

$(B)/cli/mpi_main.o: cli/mpi_main.c
	@mkdir -p $(@D)
	@echo "  MPICC   $<"
	$(Q)$(MPI_ENV) $(MPICC) $(CFLAGS) -c $< -o $@

$(B)/mapprof-mpi: $(MPI_OBJS) $(REPORT_OBJS) $(DB_OBJS)
	@echo "  LD      $@"
	$(Q)$(MPI_ENV) $(MPICC) $(LDFLAGS) $^ -o $@ $(REPORT_LIBS) -lm

# --- samples: real OpenMP offload programs -------------------------------------
SAMPLE_CFLAGS := -fopenmp -fopenmp-targets=$(OFFLOAD_TARGET) -g -O1 \
	-Wl,-rpath,$(LLVM_DIR)/lib -L$(LLVM_DIR)/lib
SAMPLES := $(patsubst samples/%.c,$(B)/samples/%,$(wildcard samples/*.c))
# Programs of several processes (fork, exec): one database per process, so they
# stay out of the one-database conventions of samples/*.c (golden, tracer
# totals, bench); tests/e2e/record_procs.sh counts each process.  The MPI
# sample (samples/mpi/) needs mpicc: tests/e2e/record_mpi.sh builds it.
PROC_SAMPLES := $(patsubst samples/%.c,$(B)/samples/%,$(wildcard samples/procs/*.c))

$(B)/samples/lib%.so: samples/lib/%.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) -fPIC -shared $< -o $@

$(B)/samples/offload_in_library: samples/offload_in_library.c $(B)/samples/liboffload_kernels.so
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) $< -o $@ -L$(B)/samples -loffload_kernels -Wl,-rpath,'$$ORIGIN'

$(B)/samples/%: samples/%.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) $< -o $@

# OpenACC samples (samples/openacc/*.c): GCC's OpenACC, host fallback without a
# GPU; recorded through the OpenACC Profiling Interface (docs/openacc.md).
ACC_SAMPLES := $(patsubst samples/%.c,$(B)/samples/%,$(wildcard samples/openacc/*.c))

$(B)/samples/openacc/%: samples/openacc/%.c
	@mkdir -p $(@D)
	@echo "  ACCCC   $<"
	$(Q)gcc -fopenacc -g -O1 $< -o $@

samples: $(SAMPLES) $(PROC_SAMPLES) $(ACC_SAMPLES)

# --- tests -------------------------------------------------------------------
# Unit tests: tests/unit/test_NAME.c, linked with the report and db objects.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

$(B)/tests/test_%: tests/unit/test_%.c $(REPORT_OBJS) $(DB_OBJS) tests/unit/check.h tests/unit/check_db.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(REPORT_OBJS) $(DB_OBJS) -o $@ $(REPORT_LIBS) -lm

# The collector's hash, tested alone (it is not in the report objects).
$(B)/tests/test_hash: tests/unit/test_hash.c collector/hash.c collector/hash.h tests/unit/check.h tests/unit/check_db.h $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< collector/hash.c $(HASH_OBJS) -o $@ $(XXH_LIBS) -lpthread

# aeshash alone: every build against the portable one.
$(B)/tests/test_aeshash: tests/unit/test_aeshash.c collector/aeshash.h tests/unit/check.h $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(HASH_OBJS) -o $@

# The collector's attached pointer slots and masked hash, tested alone with the hash.
$(B)/tests/test_attach: tests/unit/test_attach.c collector/attach.c collector/attach.h collector/hash.c collector/hash.h collector/text.c lib/termesc.c tests/unit/check.h $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< collector/attach.c collector/hash.c collector/text.c lib/termesc.c $(HASH_OBJS) -o $@ $(XXH_LIBS) -lpthread

# Independent OMPT tracer used by the end-to-end tests to cross-check the collector.
$(B)/tests/libtracer.so: tests/tracer/tracer.c tests/tracer/content_hash.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 -g -fPIC -shared $(OMPT_INC) $< -o $@ $(XXH_LIBS)

# Independent OpenACC Profiling Interface tracer (ACC_PROFLIB), for the OpenACC tests.
$(B)/tests/libacc_tracer.so: tests/tracer/acc_tracer.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)gcc -O2 -g -fPIC -shared -Wall -Wextra $< -o $@

# 'make check' sets up what the tests need (Debian packages), then builds and
# runs every test.  'make test' only builds and runs.  The test scripts take
# the compilers and paths from here (exported below).
check:
	$(Q)$(MAKE) --no-print-directory deps test-deps
	$(Q)$(MAKE) --no-print-directory test

test: all samples $(UNIT_TESTS) $(B)/tests/mapprof-dynamic $(B)/tests/libtracer.so $(B)/tests/libacc_tracer.so $(B)/bench/bootstrap $(B)/bench/libhash-floor.so \
	$(B)/bench/timeit $(B)/bench/libempty-tool.so
	$(Q)CC='$(CC)' OMPCC='$(OMPCC)' LLVM_DIR='$(LLVM_DIR)' OFFLOAD_TARGET='$(OFFLOAD_TARGET)' \
	  PYTHON='$(PYTHON)' CI='$(CI)' SANITIZE='$(SANITIZE)' tests/run.sh $(B)

# 'mapprof report' on thousands of damaged recordings, and 'mapprof recover'
# on thousands of damaged spools, built with the sanitizers in $(B)/san
# (tests/e2e/report_fuzz.sh, tests/e2e/spool_fuzz.sh; the suite runs a few
# hundred of each).  FUZZ_SEED=N starts elsewhere.
FUZZ_CASES ?= 3000
fuzz: all samples
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined B=$(B)/san $(B)/san/mapprof
	$(Q)MAPPROF_BUILD=$(abspath $(B)) MAPPROF_BIN=$(abspath $(B))/san/mapprof FUZZ_CASES=$(FUZZ_CASES) \
	  FUZZ_OUT=$(abspath $(B))/report_fuzz_san PYTHON='$(PYTHON)' bash tests/e2e/report_fuzz.sh
	$(Q)MAPPROF_BUILD=$(abspath $(B)) MAPPROF_BIN=$(abspath $(B))/san/mapprof FUZZ_CASES=$(FUZZ_CASES) \
	  FUZZ_OUT=$(abspath $(B))/spool_fuzz_san PYTHON='$(PYTHON)' bash tests/e2e/spool_fuzz.sh

# Every other C program of the project (unit tests, tracer, bench tools):
# what tests/e2e/build_warnings.sh compiles with each compiler.
build-tools: $(UNIT_TESTS) $(B)/tests/mapprof-dynamic $(B)/tests/libtracer.so $(B)/tests/libacc_tracer.so $(B)/bench/hash_bench $(B)/bench/wtrack_bench $(B)/bench/timeit \
	$(B)/bench/bootstrap $(B)/bench/libempty-tool.so $(B)/bench/libhash-floor.so

# --- setup, demo, bench ------------------------------------------------------
# What the build needs (a fresh Debian 12 has no C compiler and no make).
# clang-tools-19 holds clang's offload linker (clang-linker-wrapper).
# llvm-19-dev holds /usr/lib/llvm-19/lib/libLLVM.so.19.1: without it,
# libomptarget loads libLLVM from /usr/lib/x86_64-linux-gnu, cannot open
# libomp.so from there, and no OMPT target event is ever delivered.
DEB_PKGS := make gcc libc6-dev clang-19 clang-tools-19 llvm-19-dev libomp-19-dev libdw-dev libelf-dev libbz2-dev \
	libxxhash-dev libsqlite3-dev sqlite3 libjansson-dev pkg-config libotf2-trace-dev

# What the tests add: Debian's Chromium driven by Debian's Selenium (the
# browser test), python3 (the detectors' fuzz oracle), python3-jsonschema (the SARIF
# schema check), jq (the golden tests), Open MPI (tests/e2e/record_mpi.sh: mpirun,
# and mpicc for its sample), GNU time (/usr/bin/time: peak RSS in the tests and bench),
# clang's sanitizer runtimes (libclang-rt-19-dev: 'make SANITIZE=address,undefined'
# with clang-19, and tests/e2e/build_warnings.sh under it, link them).
# lld-19 and rocm-device-libs: the amdgcn GPU builds (tests/e2e/gpu_builds_amdgcn.sh;
# without lld-19 clang links the device code with Debian's default ld.lld, 14).
# protobuf-compiler: protoc reads back the .pftrace traces (tests/e2e/trace_pftrace.sh).
# otf2-tools and python3-otf2: otf2-print and OTF2's Python reader read back the
# .otf2 archives (tests/e2e/trace_otf2.sh).
# strace: the kernel's count of write tracking's protection changes (tests/e2e/hash_reuse_cost.sh).
# nodejs: the page's fix hints run outside the browser (tests/e2e/plans_advice_direction.sh).
# gfortran: a Fortran OpenACC program (tests/e2e/openacc_fortran.sh); flang-19: the Fortran
# OpenMP sample built for nvptx64 (tests/e2e/fortran_builds.sh).
TEST_DEB_PKGS := chromium chromium-driver python3 python3-selenium python3-jsonschema jq \
	openmpi-bin libopenmpi-dev time libclang-rt-19-dev lld-19 rocm-device-libs \
	protobuf-compiler strace nodejs otf2-tools python3-otf2 gfortran flang-19 debuginfod
# The interpreter that has python3-selenium: Debian's, not one earlier on PATH.
PYTHON ?= /usr/bin/python3

deps:
	$(Q)scripts/install-deps.sh deps $(DEB_PKGS)

# With no CUDA toolkit, the nvptx GPU builds (tests/e2e/gpu_builds.sh) get
# ptxas and libdevice from Debian's nvidia-cuda-toolkit (non-free), unpacked
# into CUDA_LOCAL: see scripts/install-cuda-ptxas.sh and docs/gpu.md.
test-deps:
	$(Q)scripts/install-deps.sh test-deps $(TEST_DEB_PKGS)
	$(Q)$(if $(CUDA_PATH),echo "test-deps: CUDA toolkit: $(CUDA_PATH)",scripts/install-cuda-ptxas.sh $(CUDA_LOCAL))

# The README's set-up lines, as written, in a new minbase Debian 12 root
# (needs root, debootstrap and the Debian mirror; FRESH_ARGS=--worktree tests
# uncommitted changes too).  See tests/fresh/fresh_debian.sh.
fresh-check:
	$(Q)tests/fresh/fresh_debian.sh $(FRESH_ARGS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(B)/samples/round_trip
	$(Q)rm -rf $(B)/demo && mkdir -p $(B)/demo
	$(B)/mapprof run -o $(B)/demo/round_trip -- $(B)/samples/round_trip
	$(Q)sqlite3 -header -column $(B)/demo/round_trip.mapprof.db \
	  "SELECT op, COUNT(*) AS events, SUM(bytes) AS bytes, COUNT(DISTINCT hash) AS contents FROM data_ops GROUP BY op;"
	@echo
	@echo "open $(abspath $(B))/demo/report.html in a browser; report.json and the database are beside it"

# --- benchmark: what recording costs ('make bench', BENCH_RUNS=N) -------------
BENCH_PROGS := $(B)/bench/transfer_heavy $(B)/bench/launch_heavy

$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) -O2 $< -o $@

$(B)/bench/hash_bench: bench/hash_bench.c collector/hash.c $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -O2 $^ -o $@ -lpthread

$(B)/bench/wtrack_bench: bench/wtrack_bench.c collector/hash.c $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -O2 $^ -o $@ -lpthread

$(B)/bench/timeit: bench/timeit.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -O2 $< -o $@

# What the runtime costs with a tool that records nothing (the bench's floor).
# Loaded into the program like the collector: its sanitizers (LIB_SANITIZE), not ASan.
$(B)/bench/libempty-tool.so: bench/empty_tool.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) -O2 -fPIC -shared $(OMPT_INC) $< -o $@ $(LIB_LDFLAGS)

# What a collector that only hashes every transferred byte costs (the bench's hash floor).
$(B)/bench/libhash-floor.so: bench/hash_floor.c collector/hash.c collector/hash.h $(HASH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) -O2 -fPIC -shared $(OMPT_INC) $< collector/hash.c $(HASH_OBJS) -o $@ $(LIB_LDFLAGS) -lpthread

$(B)/bench/bootstrap: bench/bootstrap.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -O2 $< -o $@ -lm

# The realistic suite (bench/real/): programs shaped like applications, each
# a naive and a fixed (-DFIXED) variant; 'make bench-real' runs only them.
REAL_PROGS_NAMES := lu stencil cg bfs stream tealeaf monitor heat
REAL_PROGS := $(foreach p,$(REAL_PROGS_NAMES),$(B)/bench/real/$(p).naive $(B)/bench/real/$(p).fixed)
BENCH_TOOLS := $(B)/bench/timeit $(B)/bench/bootstrap $(B)/bench/libempty-tool.so $(B)/bench/libhash-floor.so

$(B)/bench/real/%.naive: bench/real/%.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) -O2 $< -o $@ -lm

$(B)/bench/real/%.fixed: bench/real/%.c
	@mkdir -p $(@D)
	@echo "  OMPCC   $< -DFIXED"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) -O2 -DFIXED $< -o $@ -lm

bench: all samples $(BENCH_PROGS) $(REAL_PROGS) $(B)/bench/hash_bench $(B)/bench/wtrack_bench $(BENCH_TOOLS)
	$(Q)bench/run.sh $(B)
	$(Q)if [ -n "$(BENCH_LARGE)" ]; then bench/report_large.sh $(B) $(BENCH_LARGE_EVENTS); fi

bench-real: all $(REAL_PROGS) $(BENCH_TOOLS)
	$(Q)bench/run.sh $(B) real

# What 'record --check' costs on the realistic suite (also at the end of 'make bench').
bench-check: all $(REAL_PROGS) $(BENCH_TOOLS)
	$(Q)bench/run.sh $(B) check

# Against the published tool (OMPDataPerf): REF=DIR holds the checkouts
# DIR/ompdataperf and DIR/t1ha; it is built and run in a scratch folder
# outside the repository (REF_BUILD, REF_RUNS, REF_MIN_S: bench/reference/run.sh).
ifneq ($(filter bench-reference,$(MAKECMDGOALS)),)
ifeq ($(REF),)
$(error usage: make bench-reference REF=DIR (DIR/ompdataperf, DIR/t1ha))
endif
endif
bench-reference: all $(REAL_PROGS) $(BENCH_TOOLS)
	$(Q)OMPCC='$(OMPCC)' OFFLOAD_TARGET='$(OFFLOAD_TARGET)' LLVM_DIR='$(LLVM_DIR)' bench/reference/run.sh $(B) '$(REF)'

.PHONY: bench-reference

# --- accuracy of the savings model: naive/fixed pairs, 'mapprof diff' ------------
ACCURACY_PAIRS := duplicate round_trip round_trip_to repeated_alloc unused jacobi
ACCURACY_PROGS := $(foreach p,$(ACCURACY_PAIRS),$(B)/bench/accuracy/$(p).naive $(B)/bench/accuracy/$(p).fixed)

$(B)/bench/accuracy/%.naive: bench/accuracy/%.c bench/accuracy/common.h
	@mkdir -p $(@D)
	@echo "  OMPCC   $<"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) $< -o $@

$(B)/bench/accuracy/%.fixed: bench/accuracy/%.c bench/accuracy/common.h
	@mkdir -p $(@D)
	@echo "  OMPCC   $< -DFIXED"
	$(Q)$(OMPCC) $(SAMPLE_CFLAGS) -DFIXED $< -o $@

accuracy: all $(ACCURACY_PROGS)
	$(Q)LLVM_DIR='$(LLVM_DIR)' ACCURACY_PAIRS='$(ACCURACY_PAIRS)' bench/accuracy/run.sh $(B)
	$(Q)OMPCC='$(OMPCC)' OFFLOAD_TARGET='$(OFFLOAD_TARGET)' LLVM_DIR='$(LLVM_DIR)' bench/accuracy/plans.sh $(B)

# The fix plans alone: each patch applied and measured (bench/accuracy/plans.sh).
accuracy-plans: all
	$(Q)OMPCC='$(OMPCC)' OFFLOAD_TARGET='$(OFFLOAD_TARGET)' LLVM_DIR='$(LLVM_DIR)' bench/accuracy/plans.sh $(B)

install: all
	install -D -m 755 $(B)/mapprof $(DESTDIR)$(PREFIX)/bin/mapprof
	install -D -m 755 $(B)/libmapprof-collector.so $(DESTDIR)$(PREFIX)/lib/mapprof/libmapprof-collector.so
	install -D -m 755 $(B)/libmapprof-ingest.so $(DESTDIR)$(PREFIX)/lib/mapprof/libmapprof-ingest.so
	$(if $(HAVE_MPICC),install -D -m 755 $(B)/mapprof-mpi $(DESTDIR)$(PREFIX)/bin/mapprof-mpi)

clean:
	rm -rf $(B)

help:
	@echo "make deps     install the Debian packages mapprof needs (when missing)"
	@echo "make          build build/mapprof and the collector libraries"
	@echo "make demo     deps + build + record a bundled sample"
	@echo "make accuracy predicted vs measured savings on naive/fixed pairs (ACCURACY_RUNS=5, ACCURACY_GROUP=3),"
	@echo "               then every fix plan's patch applied and measured (make accuracy-plans alone)"
	@echo "make samples  build the sample offload programs (OFFLOAD_TARGET=$(OFFLOAD_TARGET))"
	@echo "make check    install what the tests need, build and run every test (CI=true: a skip fails)"
	@echo "make test     build and run every test (no installs)"
	@echo "make fuzz     mapprof report on FUZZ_CASES=$(FUZZ_CASES) damaged recordings, under ASan and UBSan"
	@echo "make fresh-check  the README's set-up lines in a new minbase Debian 12 root (root, debootstrap)"
	@echo "make bench    measure what recording costs (BENCH_RUNS=31, BENCH_REAL_RUNS=8)"
	@echo "make bench-real  the realistic suite alone (bench/real/, BENCH_REAL_RUNS=8, more for short programs)"
	@echo "make bench-check what --check costs on the realistic suite (BENCH_REAL_RUNS=8)"
	@echo "make bench-reference REF=DIR  mapprof and the hash floor against the published tool, built from"
	@echo "                  DIR/ompdataperf and DIR/t1ha in REF_BUILD=\$${TMPDIR:-/tmp}/mapprof-reference (REF_RUNS=5, more for short programs)"
	@echo "make bench-large  'mapprof report' and 'mapprof trace' (JSON, .pftrace, OTF2) of 10, 30, 100 M"
	@echo "                  synthetic events: time, peak RSS (BENCH_LARGE_EVENTS; BENCH_LARGE_WIDE: the"
	@echo "                  threads and devices of the first size's second run, '8 8';"
	@echo "                  BENCH_LARGE_COLD=1: the databases not read before;"
	@echo "                  also in 'make bench' with BENCH_LARGE=1)"
	@echo "make install  install to PREFIX=$(PREFIX)"
	@echo "make gpu-builds  build the programs for GPU_TARGET=$(GPU_TARGET) into $(GB) (docs/gpu.md)"
	@echo "make gpu-bundle  the folder to carry to a GPU machine: $(GPU_BUNDLE) (docs/gpu.md)"

.PHONY: all samples check test test-deps deps demo bench bench-real bench-check accuracy install clean help build-tools fresh-check fuzz
.DELETE_ON_ERROR:

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# BEGIN report targets
# Rewrite tests/golden/*.json from fresh recordings of the samples; review the diff.
golden-update: all samples
	$(Q)GOLDEN_UPDATE=1 MAPPROF_BUILD=$(abspath $(B)) bash tests/e2e/golden_samples.sh

# The report stage at scale: a synthetic run of ten million events (BENCH_ITERS
# iterations of 9 events), analysed with time and peak RSS.
BENCH_ITERS ?= 1111111
bench-report: all
	$(Q)bench/gen_events.sh $(B)/bench/events.db $(BENCH_ITERS)
	$(Q)/usr/bin/time -f 'mapprof report: %e s wall, %U s user, %M KiB peak RSS' \
	  $(B)/mapprof report -q --no-html --json $(B)/bench/report.json $(B)/bench/events.db

# The report stage at 10, 30 and 100 million events: seconds and peak RSS of
# each (bench/report_large.sh; the databases stay in $(B)/bench/large/).
BENCH_LARGE_EVENTS ?= 10 30 100
bench-large: all
	$(Q)bench/report_large.sh $(B) $(BENCH_LARGE_EVENTS)

.PHONY: golden-update bench-report bench-large accuracy-plans
# END report targets

# The includes point one way (README.md, "Architecture"); also run by 'make test'.
layers:
	$(Q)bash tests/e2e/layers.sh && echo "layers: every include points the right way"

.PHONY: layers

# BEGIN gpu targets
# --- GPU builds and the GPU bundle (docs/gpu.md) --------------------------------
# 'make gpu-builds' compiles and links the samples, tests/fixed/, bench/real/
# and tests/gpu/ for GPU_TARGET into $(GB) (no GPU needed: CI proves that a
# change still builds for the GPUs); 'make gpu-bundle' packs them with mapprof,
# the tracer and the Debian packages of every library they load into one
# folder to carry to a GPU machine.
GPU_TARGET ?= nvptx64-nvidia-cuda
# GPU_JIT=1 (nvptx): the device code travels as LLVM IR that the runtime
# compiles for the GPU it finds (PTX, which the driver loads), with the
# bundle's lib/libjit-targets.so preloaded (scripts/gpu-jit-targets.c).  LLVM
# 19's CUDA plugin cannot read the SM of a cubin from CUDA 12.8+'s ptxas (ELF
# ABI version 8 moved it in e_flags): "No images found compatible with the
# installed hardware", seen on an H200 with CUDA 13 (docs/gpu.md).  The
# default for 'make gpu-bundle' for nvptx; 'make gpu-builds' (CI) builds cubins.
ifeq ($(origin GPU_JIT),undefined)
GPU_JIT := $(if $(and $(filter gpu-bundle,$(MAKECMDGOALS)),$(filter nvptx64-nvidia-cuda,$(GPU_TARGET))),1)
endif
override GPU_JIT := $(filter 1,$(GPU_JIT))
GB         := $(B)/gpu/$(GPU_TARGET)$(if $(GPU_JIT),-jit)
# A CUDA toolkit: /usr/local/cuda, else Debian's nvidia-cuda-toolkit
# (/usr/lib/cuda), else the pieces of it that 'make test-deps' unpacks into
# CUDA_LOCAL (scripts/install-cuda-ptxas.sh), else the toolkit whose ptxas is
# on PATH.  Empty when there is none.
CUDA_LOCAL ?= $(CURDIR)/build/debian-cuda
CUDA_CANDIDATES = /usr/local/cuda /usr/lib/cuda $(CUDA_LOCAL) \
	$(patsubst %/bin/ptxas,%,$(realpath $(shell command -v ptxas 2>/dev/null)))
ifeq ($(origin CUDA_PATH),undefined)
CUDA_PATH := $(firstword $(foreach d,$(CUDA_CANDIDATES),$(if $(wildcard $(d)/nvvm/libdevice/libdevice.10.bc),$(d))))
endif
# ROCm's device libraries (ocml, ockl, ...): /opt/rocm, else Debian's
# rocm-device-libs.
ifeq ($(origin ROCM_DEVICE_LIB_PATH),undefined)
ROCM_DEVICE_LIB_PATH := $(firstword $(patsubst %/ocml.bc,%,$(wildcard \
	/opt/rocm/amdgcn/bitcode/ocml.bc /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc \
	/usr/lib/llvm-*/lib/clang/*/lib/amdgcn/bitcode/ocml.bc)))
endif
# -O1 as the samples have, except for amdgcn: there LLVM 19.1's AMDGPU
# backend crashes (a segfault in 'Function register usage analysis', during
# the device link's LTO) on every program with a 'parallel for' below -O2.
GPU_OPT    := -O1
ifeq ($(GPU_TARGET),nvptx64-nvidia-cuda)
GPU_ARCH   ?= sm_90
ifeq ($(GPU_JIT),1)
GPU_ARCH_FLAGS := -Xopenmp-target=$(GPU_TARGET) -march=$(GPU_ARCH) -fopenmp-target-jit
else
GPU_ARCH_FLAGS := -Xopenmp-target=$(GPU_TARGET) -march=$(GPU_ARCH) --cuda-path=$(CUDA_PATH) \
	--libomptarget-nvptx-bc-path=$(LLVM_DIR)/lib
endif
else ifeq ($(GPU_TARGET),amdgcn-amd-amdhsa)
GPU_ARCH   ?= gfx90a
GPU_ARCH_FLAGS := -Xopenmp-target=$(GPU_TARGET) -march=$(GPU_ARCH) --rocm-device-lib-path=$(ROCM_DEVICE_LIB_PATH)
GPU_OPT    := -O2
else
GPU_ARCH   ?= none
GPU_ARCH_FLAGS :=
endif
# No rpath to $(LLVM_DIR)/lib: the GPU machine has no LLVM; the bundle's
# env.sh puts its private prefix on LD_LIBRARY_PATH.
GPU_CFLAGS := -fopenmp -fopenmp-targets=$(GPU_TARGET) $(GPU_ARCH_FLAGS) -g $(GPU_OPT) -L$(LLVM_DIR)/lib

GPU_SAMPLES := $(patsubst samples/%.c,$(GB)/samples/%,$(wildcard samples/*.c))
GPU_FIXED   := $(patsubst tests/fixed/%.c,$(GB)/fixed/%,$(wildcard tests/fixed/*.c))
GPU_REAL    := $(foreach p,$(patsubst bench/real/%.c,%,$(wildcard bench/real/*.c)),$(GB)/real/$(p).naive $(GB)/real/$(p).fixed)
GPU_CHECK   := $(patsubst tests/gpu/%.c,$(GB)/check/%,$(wildcard tests/gpu/*.c))
GPU_PROGS   := $(GPU_SAMPLES) $(GPU_FIXED) $(GPU_REAL) $(GPU_CHECK)

# Say which toolkit is missing before the compiler says it less clearly.
gpu-toolkit:
ifeq ($(GPU_TARGET),nvptx64-nvidia-cuda)
	$(Q)[ -n "$(CUDA_PATH)" ] || { echo "mapprof: error: no CUDA toolkit for GPU_TARGET=$(GPU_TARGET): none of $(foreach d,$(CUDA_CANDIDATES),$(d)/nvvm/libdevice/libdevice.10.bc) exists" >&2; \
	  echo "mapprof: hint: 'make test-deps' unpacks Debian's into $(CUDA_LOCAL); or give CUDA_PATH=" >&2; exit 1; }
endif
ifeq ($(GPU_TARGET),amdgcn-amd-amdhsa)
	$(Q)[ -n "$(ROCM_DEVICE_LIB_PATH)" ] || { echo "mapprof: error: no ROCm device libraries for GPU_TARGET=$(GPU_TARGET): no ocml.bc in /opt/rocm/amdgcn/bitcode or /usr/lib/x86_64-linux-gnu/amdgcn/bitcode" >&2; \
	  echo "mapprof: hint: 'make test-deps' installs Debian's rocm-device-libs; or give ROCM_DEVICE_LIB_PATH=" >&2; exit 1; }
	$(Q)[ -x "$(LLVM_DIR)/bin/ld.lld" ] || { echo "mapprof: error: no '$(LLVM_DIR)/bin/ld.lld' for GPU_TARGET=$(GPU_TARGET): clang would link the device code with an older ld.lld" >&2; \
	  echo "mapprof: hint: 'make test-deps' installs Debian's lld-19" >&2; exit 1; }
endif

# What tests/e2e/gpu_builds*.sh need to know (and say when they skip).
gpu-info:
	@echo "CUDA_PATH=$(CUDA_PATH)"
	@echo "CUDA_CANDIDATES=$(foreach d,$(CUDA_CANDIDATES),$(d)/nvvm/libdevice/libdevice.10.bc)"
	@echo "CUDA_LOCAL=$(CUDA_LOCAL)"
	@echo "ROCM_DEVICE_LIB_PATH=$(ROCM_DEVICE_LIB_PATH)"
	@echo "GPU_ARCH=$(GPU_ARCH)"

$(GB)/samples/lib%.so: samples/lib/%.c | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) -fPIC -shared $< -o $@

$(GB)/samples/offload_in_library: samples/offload_in_library.c $(GB)/samples/liboffload_kernels.so | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) $< -o $@ -L$(GB)/samples -loffload_kernels -Wl,-rpath,'$$ORIGIN'

$(GB)/samples/%: samples/%.c | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) $< -o $@

# tests/fixed/offload_in_library.c calls the samples' library; its copy in
# fixed/ keeps the program's rpath $ORIGIN working.
$(GB)/fixed/liboffload_kernels.so: $(GB)/samples/liboffload_kernels.so
	@mkdir -p $(@D)
	$(Q)cp $< $@

$(GB)/fixed/offload_in_library: tests/fixed/offload_in_library.c $(GB)/fixed/liboffload_kernels.so | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) $< -o $@ -L$(GB)/fixed -loffload_kernels -Wl,-rpath,'$$ORIGIN'

$(GB)/fixed/%: tests/fixed/%.c | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) $< -o $@

$(GB)/real/%.naive: bench/real/%.c | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) -O2 $< -o $@ -lm

$(GB)/real/%.fixed: bench/real/%.c | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< -DFIXED ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) -O2 -DFIXED $< -o $@ -lm

# tests/gpu/NAME.c may name more link flags in its first 10 lines:
# '// LDFLAGS: -lxxhash'.
$(GB)/check/%: tests/gpu/%.c tests/gpu/async_common.h tests/tracer/content_hash.h | gpu-toolkit
	@mkdir -p $(@D)
	@echo "  OMPCC   $< ($(GPU_TARGET))"
	$(Q)$(OMPCC) $(GPU_CFLAGS) $(PKG_CFLAGS) $< -o $@ $$(sed -n '1,10s|^[[:space:]]*//[[:space:]]*LDFLAGS:||p' $<) -lm

gpu-builds: $(GPU_PROGS)

# The bundle: GPU_BUNDLE (default $(B)/gpu-bundle/), replaced whole (layout:
# docs/gpu.md).  The Debian packages are downloaded once into DEBCACHE.
GPU_BUNDLE ?= $(B)/gpu-bundle
DEBCACHE ?= $(B)/debcache
GPU_BUNDLE_MAX_MIB ?= 60
$(B)/gpu/libjit-targets.so: scripts/gpu-jit-targets.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 -fPIC -shared $< -o $@ -L$(LLVM_DIR)/lib -lLLVM-19
# GPU_BUNDLE_HOST=1 adds the samples and the realistic suite built for host
# offload (programs/host-samples, host-real): on the GPU machine, the same
# measurements on its own idle cores.
GPU_BUNDLE_HOST ?=
GB_HOST    := $(B)/gpu/x86_64-pc-linux-gnu
gpu-bundle: all gpu-builds $(B)/tests/libtracer.so $(B)/bench/libempty-tool.so $(B)/bench/libhash-floor.so $(if $(GPU_JIT),$(B)/gpu/libjit-targets.so)
	$(Q)$(if $(filter 1,$(GPU_BUNDLE_HOST)),$(MAKE) --no-print-directory gpu-builds GPU_TARGET=x86_64-pc-linux-gnu GPU_JIT=0 &&) \
	  B='$(B)' GB='$(GB)' HB='$(GB_HOST)' GPU_BUNDLE_HOST='$(GPU_BUNDLE_HOST)' GPU_BUNDLE='$(GPU_BUNDLE)' GPU_TARGET='$(GPU_TARGET)' GPU_ARCH='$(GPU_ARCH)' LLVM_DIR='$(LLVM_DIR)' \
	  GPU_JIT='$(GPU_JIT)' \
	  DEBCACHE='$(DEBCACHE)' GPU_BUNDLE_MAX_MIB='$(GPU_BUNDLE_MAX_MIB)' scripts/make-gpu-bundle.sh

.PHONY: gpu-toolkit gpu-info gpu-builds gpu-bundle
# END gpu targets
