#!/usr/bin/env bash
# build_warnings.sh - the whole build (the CLI, the collector libraries, the
# unit tests, the tracer, the bench tools) compiles without a warning under
# both gcc and clang: each compiler builds a fresh copy with -Werror (the
# Makefile adds it with CI=true).  The compilers are the Makefile's: CC and
# OMPCC (clang), each built once even when they are the same.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip "make is missing (apt-get install make)"
dir=$(tmpdir)
built=
for cc in "${CC:-cc}" "$OMPCC"; do
	command -v "$cc" >/dev/null || skip "no compiler '$cc' (make deps installs gcc and clang)"
	id=$("$cc" --version | head -n 1)
	case "$built" in *"|$id|"*) continue ;; esac
	built="$built|$id|"
	b=$dir/build-$(basename "$cc")
	make -C "$MAPPROF_SRC" --no-print-directory -j2 CI=true CC="$cc" B="$b" \
		all build-tools >"$dir/log" 2>&1 ||
		fail "the build with $cc ($id) and -Werror fails: $(grep -E 'error|warning' "$dir/log" | head -n 20)"
	# -Werror was really on: the compiler saw it.
	make -C "$MAPPROF_SRC" --no-print-directory -n -B CI=true CC="$cc" B="$b" "$b/cli/main.o" |
		grep -q -- '-Werror' || fail "CI=true does not add -Werror"
	echo "ok: $id builds without a warning"
done
