#!/bin/sh
# install-deps.sh WHAT PACKAGE... - install the Debian packages that are
# missing, and only those, without their recommendations.
#
# Says what it will install before installing it; never removes a package
# unless ALLOW_REMOVE=yes (otherwise it names the conflicting packages and
# the apt-get line that replaces them, and stops); as a user other than root it uses
# sudo when there is one, and otherwise prints the command to run as root.
# WHAT names the step in its messages ('deps', 'test-deps').
set -eu
what=$1
shift
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "$what: all installed"
	exit 0
fi
cmd="apt-get install --no-install-recommends$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "$what: missing packages:$missing" >&2
	echo "$what: this is not a Debian system (no apt-get): install their equivalents by hand" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "$what: missing Debian packages:$missing" >&2
	echo "$what: there is no sudo; as root, run: apt-get update && $cmd" >&2
	exit 1
fi
echo "$what: installing the missing Debian packages:$missing"
$sudo apt-get update -q
sim=$(LC_ALL=C apt-get install -s --no-install-recommends $missing 2>/dev/null || true)
n=$(printf '%s\n' "$sim" | grep -c '^Inst ' || true)
removes=$(printf '%s\n' "$sim" | sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr "\n" " " | sed "s/ *$//")
if [ -n "$removes" ]; then
	# Name the package that wants them gone: simulate each missing one alone.
	culprits=
	for p in $missing; do
		LC_ALL=C apt-get install -s --no-install-recommends "$p" 2>/dev/null | grep -q '^Remv ' &&
			culprits="$culprits $p"
	done
	echo "$what: installing${culprits:-$missing} would remove installed packages that conflict with it: $removes" >&2
	if [ "${ALLOW_REMOVE:-}" != yes ]; then
		echo "$what: nothing was installed or removed; to replace them, run:" >&2
		echo "$what:   ${sudo:+sudo }apt-get install --no-install-recommends$missing" >&2
		echo "$what: (or run make again with ALLOW_REMOVE=yes)" >&2
		exit 1
	fi
	echo "$what: ALLOW_REMOVE=yes: apt will install $n packages and remove: $removes"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
	exit 0
fi
echo "$what: with their dependencies, apt will install $n packages (and remove none):"
# -y with --no-remove: apt lists what it installs, then aborts rather than
# remove anything the user has.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends --no-remove $missing
