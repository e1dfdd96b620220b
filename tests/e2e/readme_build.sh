#!/usr/bin/env bash
# The README's build line works as written (issue #26): the line between the
# 'readme-build' markers, run on a sample as app.c, gives a program that
# 'mapprof run' records and reports.  And a program built without the
# rpath, which the loader cannot start, is reported as such: the missing
# library, where it is, the fix, exit 127, no empty report.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof

line=$(awk '/<!-- readme-build: tests/ { on = 1; next } /<!-- readme-build: end/ { on = 0 }
	on && /^clang/' "$MAPPROF_SRC/README.md")
[ -n "$line" ] || fail "no build line between the readme-build markers of README.md"
case $line in
*-fopenmp-targets=x86_64-pc-linux-gnu*) ;;
*) skip "the README's build line is not for host offload: $line" ;;
esac
cp "$MAPPROF_SRC/samples/round_trip.c" "$t/app.c"
(cd "$t" && env -u LD_LIBRARY_PATH bash -c "$line") >"$t/build.log" 2>&1 ||
	fail "the README's build line failed: $line
$(cat "$t/build.log")"
(cd "$t" && env -u LD_LIBRARY_PATH "$m" run -- ./app) >"$t/out" 2>"$t/err" ||
	fail "mapprof run -- ./app (built as the README says) failed: $(cat "$t/err")"
grep -q "round_trip" "$t/out" || fail "no round trip found in: $(cat "$t/out")"
[ -s "$t/report.html" ] || fail "no report.html"

# The same line without the rpath: the loader cannot start the program.
mkdir "$t/norpath"
cp "$t/app.c" "$t/norpath/"
bad=${line/ -Wl,-rpath,\/usr\/lib\/llvm-19\/lib/}
[ "$bad" != "$line" ] || fail "could not take the rpath out of: $line"
(cd "$t/norpath" && env -u LD_LIBRARY_PATH bash -c "$bad") >"$t/build.log" 2>&1 || fail "build without rpath failed"
set +e
(cd "$t/norpath" && env -u LD_LIBRARY_PATH "$m" run -- ./app) >"$t/out" 2>"$t/err"
rc=$?
set -e
assert_eq "$rc" 127 "exit status of 'run' for a program the loader cannot start"
grep -q "the program could not start: the loader cannot find the library libomptarget.so" "$t/err" ||
	fail "no loader diagnosis in: $(cat "$t/err")"
grep -q -- "-Wl,-rpath,/usr/lib/llvm-19/lib" "$t/err" || fail "no rpath fix named in: $(cat "$t/err")"
grep -q "may not use OpenMP" "$t/err" && fail "still blames OpenMP: $(cat "$t/err")"
[ ! -e "$t/norpath/report.html" ] || fail "an empty report was written for a program that never started"
[ ! -e "$t/norpath/app.mapprof.db" ] || fail "a database was left for a program that never started"
# Again, as a user does after reading the message: the same answer, no -f asked for.
set +e
(cd "$t/norpath" && env -u LD_LIBRARY_PATH "$m" run -- ./app) >"$t/out" 2>"$t/err"
rc=$?
set -e
assert_eq "$rc" 127 "exit status of a second 'run' of a program the loader cannot start"
grep -q "the program could not start" "$t/err" || fail "the second run did not say why: $(cat "$t/err")"
echo "ok: the README's build line records; a program the loader cannot start is named with its fix"

# Behind a wrapper script the loader's words go to the script's stderr:
# mapprof says what 127 means there instead of blaming OpenMP.
printf '#!/bin/sh\nexec ./app "$@"\n' >"$t/norpath/wrap.sh"
chmod +x "$t/norpath/wrap.sh"
set +e
(cd "$t/norpath" && env -u LD_LIBRARY_PATH "$m" run -- ./wrap.sh) >"$t/out" 2>"$t/err"
rc=$?
set -e
assert_eq "$rc" 127 "exit status of 'run' for a wrapper whose program the loader cannot start"
grep -q "'./wrap.sh' ended with status 127 before any OpenMP ran" "$t/err" ||
	fail "no wrapper diagnosis in: $(cat "$t/err")"
grep -q "may not use OpenMP" "$t/err" && fail "behind a wrapper, still blames OpenMP: $(cat "$t/err")"
echo "ok: behind a wrapper script, status 127 is explained, not blamed on OpenMP"
