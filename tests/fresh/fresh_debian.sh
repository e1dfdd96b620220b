#!/usr/bin/env bash
# fresh_debian.sh - the README's set-up lines, as written, in a new minbase
# Debian 12 root: the claim "two commands on a fresh machine" checked, not
# hoped.  'make fresh-check' runs it; it needs root, debootstrap and the
# Debian mirror, and takes a while (it installs ~1 000 packages).
#
#   tests/fresh/fresh_debian.sh [--worktree] [--base TAR] [--save-base TAR] [--keep]
#
#   --worktree      test the working tree as it is (default: the last commit,
#                   as a clean clone would have it)
#   --base TAR      start from this tarball of a debootstrap'ed root instead of
#                   running debootstrap (made with --save-base; saves minutes)
#   --save-base TAR save the new debootstrap'ed root to TAR first
#   --keep          keep the root afterwards (its path is printed)
#
# In the root (chroot, with /proc, /sys and /dev mounted), as root with an
# empty environment: the lines of README.md's fenced block between the
# 'fresh-debian' markers, one by one, with '<this repository>' replaced by
# a clone of this checkout.  Then it checks what they must have done: a real
# report from 'make demo', and 'make check' ending with every test passed,
# none failed and none skipped.  Last, as a user without sudo, 'make deps'
# finds everything installed, and for a missing package prints the apt-get
# line to run as root instead of calling sudo.  Packages and disk use are
# printed after each step.  Exits 0 when all of it held.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
worktree=0 base= save_base= keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--worktree) worktree=1 ;;
	--base) base=$2; shift ;;
	--save-base) save_base=$2; shift ;;
	--keep) keep=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh_debian: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
die() { echo "fresh_debian: error: $*" >&2; exit 1; }
say() { echo "== $*"; }
[ "$(id -u)" = 0 ] || die "needs root (chroot, mount)"
command -v debootstrap >/dev/null || [ -n "$base" ] ||
	die "debootstrap is missing (apt-get install --no-install-recommends debootstrap)"

root=$(mktemp -d "${FRESH_TMP:-/var/tmp}/mapprof-fresh.XXXXXX")
# mktemp makes it 0700, and debootstrap leaves it so: a real root is 0755, and
# the user without sudo below must reach /usr/bin.
chmod 0755 "$root"
cleanup() {
	umount -R "$root/proc" "$root/sys" "$root/dev" 2>/dev/null || true
	if [ "$keep" = 1 ]; then echo "the root is kept: $root"; else rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

# --- the root ----------------------------------------------------------------
if [ -n "$base" ]; then
	say "root from $base"
	tar -C "$root" -xzf "$base"
else
	say "debootstrap --variant=minbase $suite $root"
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
		die "debootstrap failed: $(tail -n 5 "$root.debootstrap.log")"
	rm -f "$root.debootstrap.log"
	if [ -n "$save_base" ]; then
		tar -C "$root" -czf "$save_base" .
		say "saved the root to $save_base"
	fi
fi
# The sources a Debian 12 installation has: the release, its updates and
# the security archive.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"

# The code, as a repository at /src in the root: HEAD, or the working tree.
if [ "$worktree" = 1 ]; then
	tmp=$(mktemp -d)
	(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 tar -cf - 2>/dev/null) | tar -C "$tmp" -xf -
	git -C "$tmp" init -q && git -C "$tmp" add -A &&
		git -C "$tmp" -c user.name=fresh -c user.email=fresh@invalid commit -qm worktree
	git clone -q --bare "$tmp" "$root/src"
	rm -rf "$tmp"
else
	git clone -q --bare "$src" "$root/src"
fi

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 TERM=dumb "$@"
}
footprint() {
	echo "   packages: $(in_root dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed')," \
		"disk used by the root: $(du -sxm "$root" | cut -f1) MiB"
}
say "a new minbase Debian 12"
footprint

# --- the README's lines --------------------------------------------------------
mapfile -t lines < <(sed -n '/^<!-- fresh-debian:/,/^<!-- fresh-debian: end -->/p' "$src/README.md" |
	sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
[ ${#lines[@]} -ge 3 ] || die "README.md has no fresh-debian block of commands"
step=0 cwd=/root
for line in "${lines[@]}"; do
	step=$((step + 1))
	log=$root/root/step$step.log
	say "README line $step: $line"
	t0=$(date +%s)
	# Each line in its own shell, in the directory the line before left
	# ('cd' carries over, as in a terminal); its comment stays a comment.
	if ! in_root bash -ec "cd '$cwd'
${line//<this repository>//src}
pwd >/root/.cwd" >"$log" 2>&1; then
		tail -n 40 "$log"
		die "README line $step failed: $line"
	fi
	cwd=$(cat "$root/root/.cwd")
	tail -n 4 "$log" | sed 's/^/   | /'
	echo "   took $(( $(date +%s) - t0 )) s"
	footprint
done

# --- what the lines must have done ---------------------------------------------
repo=$root/root/mapprof
report=$repo/build/demo/report.html
[ -s "$report" ] || die "'make demo' wrote no $report"
grep -q 'round_trip' "$report" || die "the demo report names no round trip"
in_root sqlite3 /root/mapprof/build/demo/round_trip.mapprof.db 'SELECT COUNT(*) FROM data_ops' | grep -qv '^0$' ||
	die "the demo database holds no data op"
say "make demo wrote a real report ($(du -k "$report" | cut -f1) KiB) and database"

check_log=$(grep -l 'passed, .* failed, .* skipped' "$root"/root/step*.log | tail -n 1) ||
	die "no 'make check' summary in the logs"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$check_log" | tail -n 1)
grep -E '^(PASS|FAIL|SKIP)' "$check_log" | sed 's/^/   /'
echo "   $summary"
[[ $summary =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ 0\ skipped$ ]] ||
	die "make check: '$summary' (every test must run and pass)"

# --- a user without sudo -----------------------------------------------------------
say "a user without sudo"
in_root useradd -m tester
in_root git clone -q /src /home/tester/mapprof
in_root chown -R tester: /home/tester/mapprof
out=$(in_root runuser -u tester -- make -C /home/tester/mapprof --no-print-directory deps 2>&1) ||
	die "make deps as a user, all installed: $out"
grep -q 'all installed' <<<"$out" || die "make deps as a user: '$out'"
rc=0
out=$(in_root runuser -u tester -- make -C /home/tester/mapprof --no-print-directory deps \
	DEB_PKGS='hello' 2>&1) || rc=$?
[ "$rc" != 0 ] || die "make deps as a user without sudo, a package missing, exited 0"
grep -q 'as root, run: apt-get update && apt-get install --no-install-recommends hello' <<<"$out" ||
	die "make deps as a user without sudo does not say what to run as root: $out"
echo "   $(grep 'as root' <<<"$out")"
say "fresh Debian 12: every README line worked, every test ran and passed"
