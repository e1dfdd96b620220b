#!/usr/bin/env bash
# deps_sanitize.sh - 'make test-deps' installs what the sanitizer build
# links: every sanitizer runtime that clang (OMPCC) links into mapprof under
# 'make SANITIZE=address,undefined' and into the collector libraries
# (-shared-libsan, UBSan) comes from a package that 'make deps' or
# 'make test-deps' installs.  Before, libclang-rt-19-dev was in neither and
# tests/e2e/build_warnings.sh failed to link under SANITIZE on a machine set
# up by 'make check'.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip "make is missing (apt-get install make)"
command -v dpkg >/dev/null || skip "not a Debian system (no dpkg): the package lists are Debian's"
command -v "$OMPCC" >/dev/null || skip "no compiler '$OMPCC' (make deps installs it)"
dir=$(tmpdir)
echo 'int main(void) { return 0; }' >"$dir/x.c"

# The lists as the Makefile passes them to scripts/install-deps.sh.
pkgs=" $(make -C "$MAPPROF_SRC" --no-print-directory -n deps test-deps |
	sed -n 's/^.*install-deps\.sh [a-z-]* //p' | tr '\n' ' ') "
case "$pkgs" in *" clang-19 "*) ;; *) fail "cannot read the package lists from 'make -n deps test-deps': '$pkgs'" ;; esac

# The runtime files clang names on its link lines (-### prints them, links nothing).
{
	"$OMPCC" -fsanitize=address,undefined -### "$dir/x.c" -o "$dir/x" 2>&1
	"$OMPCC" -fsanitize=undefined -shared-libsan -shared -fPIC -### "$dir/x.c" -o "$dir/x.so" 2>&1
} | tr ' ' '\n' | tr -d '"' | grep -o '/[^=]*libclang_rt[^ ]*\.\(a\|so\)$' | sort -u >"$dir/rt"
[ -s "$dir/rt" ] || fail "'$OMPCC -fsanitize=address,undefined -###' names no libclang_rt runtime"
n=0
while read -r f; do
	real=$(readlink -f "$f")
	owner=$(dpkg -S "$real" 2>/dev/null | head -n 1 | cut -d: -f1) || true
	[ -n "$owner" ] || owner=$(dpkg -S "$f" 2>/dev/null | head -n 1 | cut -d: -f1) || true
	[ -n "$owner" ] || skip "'$f' belongs to no installed package here: cannot tell which one provides it"
	case "$pkgs" in
	*" $owner "*) echo "ok: $(basename "$f") comes from $owner, which make deps/test-deps install" ;;
	*) fail "the sanitizer build links '$f' from package '$owner', which neither 'make deps' nor 'make test-deps' installs" ;;
	esac
	n=$((n + 1))
done <"$dir/rt"
echo "ok: $n sanitizer runtimes, each from a package the Makefile installs"
