#!/usr/bin/env bash
# record_cli.sh - the command line of 'mapprof record': exit statuses passed
# through, refusals, help and version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
dir=$(tmpdir)
cd "$dir"
cat >exit7.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <signal.h>
int main(int argc, char **argv) {
	double a[64] = {0};
	#pragma omp target data map(tofrom: a)
	{
		#pragma omp target
		a[0] = 1;
		if (argc > 1 && !strcmp(argv[1], "exit"))
			exit(7);
		if (argc > 1 && !strcmp(argv[1], "kill"))
			raise(SIGKILL);
	}
	return argc > 1 && !strcmp(argv[1], "ret") ? 5 : 0;
}
C
compile_offload exit7.c exit7 -g

status() { local rc=0; "$@" >/dev/null 2>"$dir/err" || rc=$?; echo "$rc"; }

assert_eq "$(status "$mapprof" record -o r.db -- ./exit7 ret)" 5 "return 5 from main"
assert_eq "$(q r.db 'SELECT exit_status, status FROM run')" "5|complete" "run row after return 5"

assert_eq "$(status "$mapprof" record -f -o r.db -- ./exit7 exit)" 7 "exit(7) inside a target data region"
assert_eq "$(q r.db "SELECT COUNT(*) FROM data_ops WHERE op IN ('alloc','to_device')")" 2 \
	"events recorded before exit()"

assert_eq "$(status "$mapprof" record -f -o r.db -- ./exit7 kill)" 137 "killed by SIGKILL"
assert_eq "$(q r.db 'SELECT exit_signal, exit_status FROM run')" "9|137" "run row after SIGKILL"
# The killed program's last events were still in the ring shared with record.
assert_eq "$(q r.db "SELECT COUNT(*) FROM data_ops WHERE op IN ('alloc','to_device')")" 2 \
	"events recorded before SIGKILL"
assert_eq "$(q r.db 'SELECT COUNT(*) FROM kernels')" 1 "kernel recorded before SIGKILL"

# Event times, whether read from the timestamp counter (the default where the
# kernel's clock source is the TSC) or from clock_gettime: two target regions
# 50 ms apart are recorded 50 ms apart, inside the run.
cat >gap.c <<'C'
#include <time.h>
int main(void) {
	double x = 0;
	struct timespec ts = { 0, 50000000 };
	#pragma omp target map(tofrom: x)
	x += 1;
	nanosleep(&ts, NULL);
	#pragma omp target map(tofrom: x)
	x += 1;
	return x == 2 ? 0 : 1;
}
C
compile_offload gap.c gap
for clock in tsc monotonic; do
	MAPPROF_CLOCK=$clock record_prog gap.db ./gap >/dev/null
	assert_eq "$(q gap.db "SELECT MAX(begin_ns) - MIN(end_ns) BETWEEN 50000000 AND 60000000 FROM targets")" 1 \
		"50 ms between two regions with MAPPROF_CLOCK=$clock ($(q gap.db "SELECT MAX(begin_ns) - MIN(end_ns) FROM targets") ns)"
	assert_eq "$(q gap.db "SELECT MIN(t.begin_ns) > 0 AND MAX(t.end_ns) < r.wall_ns FROM targets t, run r")" 1 \
		"event times inside the run with MAPPROF_CLOCK=$clock"
done

# Many events, whatever the ring's size: 0 chunks (the collector writes every
# buffer itself), 1 (full most of the time: it writes what does not fit),
# and the default (record writes them).  Each region is alloc, to, from, delete.
cat >loop.c <<'C'
#include <stdlib.h>
int main(int argc, char **argv) {
	int n = atoi(argv[1]);
	double x = 0;
	for (int i = 0; i < n; i++) {
		#pragma omp target map(tofrom: x)
		x += 1;
	}
	return x == n ? 0 : 1;
}
C
compile_offload loop.c loop
assert_eq "$(MAPPROF_RING_CHUNKS=-1 status "$mapprof" record -f -o loop.db -- ./loop 1)" 3 "a bad MAPPROF_RING_CHUNKS"
grep -q "MAPPROF_RING_CHUNKS must be" err || fail "no message for a bad MAPPROF_RING_CHUNKS: $(cat err)"
for chunks in 0 1 ""; do
	MAPPROF_RING_CHUNKS=$chunks "$mapprof" record -f -o loop.db -- ./loop 3001 2>err >/dev/null ||
		fail "record with MAPPROF_RING_CHUNKS='$chunks': $(cat err)"
	assert_eq "$(q loop.db "SELECT COUNT(*), COUNT(DISTINCT seq) FROM data_ops")" "12004|12004" \
		"data ops with MAPPROF_RING_CHUNKS='$chunks'"
	assert_eq "$(q loop.db "SELECT COUNT(*), status FROM kernels, run")" "3001|complete" \
		"kernels with MAPPROF_RING_CHUNKS='$chunks'"
done

# Refusals.
assert_eq "$(status "$mapprof" record -o r.db -- ./exit7)" 3 "existing output without --force"
grep -q "already exists" err || fail "no 'already exists' message: $(cat err)"
assert_eq "$(status "$mapprof" record -o nodir/r.db -- ./exit7)" 3 "unwritable output"
grep -q "cannot create 'nodir/r.db'" err || fail "unclear message for an unwritable path: $(cat err)"
assert_eq "$(status "$mapprof" record -f -o n.db -- ./no-such-program)" 127 "program not found"
[ ! -e n.db ] || fail "a database was left behind for a program that never ran"
chmod -x exit7.c
assert_eq "$(status "$mapprof" record -f -o n.db -- ./exit7.c)" 126 "not executable"
assert_eq "$(status "$mapprof" record)" 2 "no program"
assert_eq "$(status "$mapprof" record --bogus -- ./exit7)" 2 "unknown option"

# A program that never loads OpenMP: the database says why it is empty.
assert_eq "$(status "$mapprof" record -f -o t.db -- true)" 0 "a non-OpenMP program"
assert_eq "$(q t.db 'SELECT status FROM run')" "no-collector" "status of a non-OpenMP run"

# stdin and stdout are the program's.
assert_eq "$(echo hello | "$mapprof" record -f -o c.db -- cat 2>/dev/null)" "hello" "stdin/stdout pass through"

# OMP_TOOL_LIBRARIES set by the user is kept (ours appended).
OMP_TOOL_LIBRARIES=/nonexistent/tool.so "$mapprof" record -f -o u.db -- ./exit7 >/dev/null 2>&1 ||
	fail "record with a user OMP_TOOL_LIBRARIES"
assert_eq "$(q u.db "SELECT value LIKE '/nonexistent/tool.so:%libmapprof-collector.so' FROM environment
	WHERE name = 'OMP_TOOL_LIBRARIES'")" 1 "OMP_TOOL_LIBRARIES appended to"

# Help and version are true and go to stdout.
"$mapprof" --help | grep -q "record" || fail "mapprof --help does not list record"
"$mapprof" record --help | grep -q -- "--force" || fail "record --help does not describe --force"
"$mapprof" --version | grep -Eq '^mapprof [0-9]+\.[0-9]+' || fail "mapprof --version"

# Large transfers (hashed in chunks on helper threads): content that comes
# back unchanged has the same hash both ways; changed content does not.
cat >big.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) {
	size_t n = (size_t)3 << 20;  /* 24 MiB of doubles */
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	for (size_t i = 0; i < n; i++) { a[i] = (double)i; b[i] = i + 0.5; }
	#pragma omp target map(tofrom: a[0:n], b[0:n])
	{ b[n - 1] += 1; }
	printf("%g %g\n", a[n - 1], b[n - 1]);
	return 0;
}
C
compile_offload big.c big -g
record_prog big.db ./big >/dev/null
assert_eq "$(q big.db "SELECT COUNT(DISTINCT hash) FROM data_ops WHERE op IN ('to_device','from_device')")" 3 \
	"distinct contents of a, b before and b after"
assert_eq "$(q big.db "SELECT COUNT(*) FROM data_ops t JOIN data_ops f ON t.hash = f.hash
	WHERE t.op = 'to_device' AND f.op = 'from_device'")" 1 "a comes back with the hash it left with"

# The collector never loads SQLite into the program: it writes a spool that
# 'record' expands afterwards, and removes.
ldd "$MAPPROF_BUILD/libmapprof-collector.so" | grep -q sqlite && fail "the collector links SQLite"
[ ! -e big.db-spool ] || fail "the spool is left behind after record"

# The collector loaded by hand, without 'mapprof record': at exit it builds
# the database through libmapprof-ingest.so (deletes paired, spool removed).
rm -f hand.db
MAPPROF_OUTPUT=$dir/hand.db OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/libmapprof-collector.so \
	"$MAPPROF_BUILD/samples/repeated_alloc" >/dev/null || fail "run with the collector by hand"
assert_eq "$(q hand.db 'SELECT status FROM run')" complete "status of a run recorded by hand"
[ ! -e hand.db-spool ] || fail "the spool is left behind by a collector loaded by hand"
# ... and never into an existing database.
before=$(q hand.db 'SELECT COUNT(*) FROM data_ops')
MAPPROF_OUTPUT=$dir/hand.db OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/libmapprof-collector.so \
	"$MAPPROF_BUILD/samples/repeated_alloc" >/dev/null 2>err || fail "second run by hand"
grep -q "hand.db' exists" err || fail "no word that the database exists: $(cat err)"
assert_eq "$(q hand.db 'SELECT COUNT(*) FROM data_ops')" "$before" "an existing database is left alone"
"$mapprof" report -q --no-html --no-json hand.db || fail "report of a run recorded by hand"
assert_eq "$(q hand.db "SELECT COUNT(*) FROM data_ops WHERE op = 'delete' AND bytes = 0")" 0 \
	"deletes paired by report"
assert_eq "$(q hand.db "SELECT occurrences FROM finding_summary WHERE kind = 'repeated_alloc'")" 4 \
	"repeated allocations found in a run recorded by hand"

# An OpenMP program that offloads nothing: complete, and the record says so.
cat >par.c <<'C'
#include <stdio.h>
int main(void) { int s = 0;
#pragma omp parallel reduction(+: s)
	s += 1;
	printf("%d\n", s > 0); return 0; }
C
ompcc_host par.c -o par || fail "cannot build par.c"
"$mapprof" record -f -o par.db -- ./par >/dev/null 2>err || fail "record par"
grep -q "nothing was offloaded" err || fail "no note that nothing was offloaded: $(cat err)"
assert_eq "$(q par.db "SELECT status FROM run")" complete "status of a run without offload"

# Many threads (more than the collector has buffers for), each offloading
# once and ending: nothing hangs, every kernel is recorded.
cat >threads.c <<'C'
#include <pthread.h>
#include <stdio.h>
#define T 80
static void *work(void *arg) {
	double x = (double)(long)arg;
	#pragma omp target map(tofrom: x)
	x += 1;
	return NULL;
}
int main(void) {
	pthread_t t[T];
	for (long i = 0; i < T; i++) {	/* one after another, as a thread pool would */
		pthread_create(&t[i], NULL, work, (void *)i);
		pthread_join(t[i], NULL);
	}
	#pragma omp parallel num_threads(T)
	{
		double y = 1;
		#pragma omp target map(tofrom: y)
		y += 1;
	}
	puts("ok");
	return 0;
}
C
compile_offload threads.c threads -g -lpthread
timeout 120 "$mapprof" record -f -o threads.db -- ./threads >/dev/null 2>err || fail "record threads: $? $(cat err)"
assert_eq "$(q threads.db 'SELECT COUNT(*) FROM kernels')" 160 "kernels of 160 threads"
assert_eq "$(q threads.db 'SELECT events_lost FROM run')" 0 "events lost with 160 threads"

# A script that runs two OpenMP programs: the first claims the database, the
# second gets one of its own (twice.PID.db, said on stderr), nothing is mixed.
printf '#!/bin/sh\n./exit7 ret\n./exit7\n' >twice.sh
chmod +x twice.sh
rm -f twice.*.db
"$mapprof" record -f -o twice.db -- ./twice.sh >/dev/null 2>err; rc=$?
assert_eq "$rc" 0 "exit status of a script of two programs"
grep -q "(exec): recorded .* to 'twice\.[0-9]*\.db'" err ||
	fail "the second process's database is not named: $(cat err)"
assert_eq "$(q twice.db "SELECT status FROM run")" complete "status after a script of two programs"
assert_eq "$(q twice.db "SELECT COUNT(*) FROM kernels")" 1 "kernels of the first program only"
second=$(ls twice.[0-9]*.db)
assert_eq "$(q "$second" "SELECT status, started FROM run, process")" "complete|exec" \
	"the second program's database"
assert_eq "$(q "$second" "SELECT COUNT(*) FROM kernels")" 1 "kernels of the second program"

# Offload code in a library loaded with dlopen(RTLD_LOCAL): the interposed
# entry points still find the runtime's.
cat >plug.c <<'C'
double plug(double v) {
	#pragma omp target map(tofrom: v)
	v *= 2;
	return v;
}
C
cat >host.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	double (*plug)(double) = (double (*)(double))dlsym(h, "plug");
	printf("%g\n", plug(21));
	return 0;
}
C
ompcc -g -fPIC -shared plug.c -o libplug.so || fail "cannot build plug.c"
"${CC:-cc}" host.c -o host -ldl || fail "cannot build host.c"
assert_eq "$("$mapprof" record -f -o plug.db -- ./host "$dir/libplug.so" 2>err)" 42 \
	"a program whose offload library is loaded RTLD_LOCAL: $(cat err)"
assert_eq "$(q plug.db 'SELECT COUNT(*) FROM kernels')" 1 "kernels of an RTLD_LOCAL library"
[ "$(q plug.db "SELECT COUNT(*) FROM modules WHERE path LIKE '%libplug.so'")" -ge 1 ] ||
	fail "the dlopen'ed library is missing from the module map"
# No LD_PRELOAD: the library's offload calls reach the collector through its
# GOT, patched when it was loaded (here, while the runtime started the tool).
assert_eq "$(q plug.db "SELECT COUNT(*) FROM source_raw WHERE psource LIKE ';plug.c;plug;2;%'")" 1 \
	"the source record of the RTLD_LOCAL library's target construct"

# Linked with -z now and RELRO: the GOT slots are read-only by the time the
# tool starts; the collector makes the page writable for its write only.
compile_offload "$MAPPROF_SRC/samples/round_trip.c" bindnow -g -O1 -Wl,-z,now -Wl,-z,relro
readelf -d bindnow | grep -q BIND_NOW || readelf -d bindnow | grep -q 'Flags:.*NOW' ||
	fail "bindnow was not linked with -z now"
record_prog bindnow.db ./bindnow >bindnow.out
./bindnow | cmp -s - bindnow.out || fail "a program linked with -z now prints otherwise under record"
[ "$(q bindnow.db "SELECT COUNT(*) FROM source_raw WHERE psource LIKE ';%round_trip.c;%'")" -ge 1 ] ||
	fail "no source records from a program linked with -z now"

# An offload library loaded after the tool started: its GOT is patched when
# its image reaches the device, during its first offload call, so from the
# second call on its calls carry their source records.
cat >late.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
	double x = 1;
	#pragma omp target map(tofrom: x)
	x += 1;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	double (*plug)(double) = (double (*)(double))dlsym(h, "plug");
	double y = plug(21);
	printf("%g\n", plug(y) + x);
	return 0;
}
C
compile_offload late.c late -g -ldl
assert_eq "$("$mapprof" record -f -o late.db -- ./late "$dir/libplug.so" 2>err)" 86 \
	"a program that loads an offload library after its first target region: $(cat err)"
assert_eq "$(q late.db 'SELECT COUNT(*) FROM kernels')" 3 "kernels of the program and the late library"
assert_eq "$(q late.db "SELECT COUNT(*) FROM source_raw WHERE psource LIKE ';plug.c;plug;2;%'")" 1 \
	"the source record of the late library's target construct"
assert_eq "$(q late.db "SELECT COUNT(*) FROM source_raw WHERE psource LIKE ';late.c;main;5;%'")" 1 \
	"the source record of the program's own target construct"

# A spool that cannot be expanded (here, overwritten by the program): record
# says so, keeps the spool, and the run says why instead of "no collector".
"$mapprof" record -f -o bad.db -- sh -c 'head -c 64 /dev/zero >"$MAPPROF_SPOOL"' >/dev/null 2>err
grep -q "not a spool" err || fail "no word about the unreadable spool: $(cat err)"
[ -e bad.db-spool ] || fail "the unreadable spool was not kept"
assert_eq "$(q bad.db "SELECT status FROM run")" incomplete "status when the spool cannot be expanded"
q bad.db "SELECT status_detail FROM run" | grep -q "could not be expanded" ||
	fail "status_detail does not say why: $(q bad.db 'SELECT status_detail FROM run')"

# A runtime whose libomptarget cannot attach to libomp's OMPT interface (it
# opens libomp.so from libLLVM's directory; here libomptarget and libomp
# are copies in a directory of their own, as on a Debian without
# llvm-19-dev): the program offloads, the collector sees its offload calls
# but no target event.  The run is incomplete and says why, not "nothing
# was offloaded".
mkdir rt
cp -L "$LLVM_DIR"/lib/libomptarget.so.[0-9]* "$LLVM_DIR"/lib/libomp.so.5 rt/ ||
	fail "cannot copy the OpenMP runtime"
"$OMPCC" -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g "$MAPPROF_SRC/samples/round_trip.c" \
	-o noompt -L"$LLVM_DIR/lib" -Wl,-rpath,"$dir/rt" || fail "cannot build noompt"
"$mapprof" record -f -o noompt.db -- ./noompt >/dev/null 2>err || fail "record noompt: $(cat err)"
assert_eq "$(q noompt.db "SELECT status, (SELECT COUNT(*) FROM data_ops) FROM run")" "incomplete|0" \
	"status of a run whose runtime delivered no target event"
grep -q "delivered no target event" err || fail "record does not say the runtime delivered no event: $(cat err)"
grep -q "nothing was offloaded" err && fail "record blames the program: $(cat err)"
q noompt.db "SELECT status_detail FROM run" | grep -q "llvm-<version>-dev" ||
	fail "status_detail does not say what to install: $(q noompt.db 'SELECT status_detail FROM run')"
