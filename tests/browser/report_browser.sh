#!/usr/bin/env bash
# report_browser.sh - report.html in a real browser: Debian's headless
# Chromium driven by playwright-core (tests/browser/check_report.mjs), no
# browser download.  Opens the pages tests/unit/test_html.c writes into
# $MAPPROF_BUILD/test-output/ (a report shaped like the round_trip sample's,
# one full of hostile strings, one with 10 000 findings over 100 000 events)
# and, once 'mapprof report --html' exists, a real recording of a sample.
# Screenshots: $MAPPROF_BUILD/test-output/report-*.png.
#
# Needs /usr/bin/chromium (apt-get install chromium) and Node.js >= 20 with
# npm (the machine image's; Debian 12's own nodejs is 18); installs
# playwright-core into tests/browser/node_modules with 'npm ci' when missing.  Outside CI it skips when Chromium is absent;
# with CI=true it fails instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${MAPPROF_BUILD:?MAPPROF_BUILD must name the build directory}
out=$B/test-output
chromium=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM=$chromium

missing() {
	if [ "${CI:-}" = true ]; then
		echo "error: $1 is missing; CI must install it ($2)"
		exit 1
	fi
	echo "SKIP: $1 is missing ($2); report.html was not tested in a browser"
	exit 0
}
[ -x "$chromium" ] || missing "$chromium" "apt-get install chromium"
command -v node >/dev/null || missing node "apt-get install nodejs npm"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || missing "node >= 20 (found $(node --version))" "playwright-core needs Node.js 20"

if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
	command -v npm >/dev/null || missing npm "apt-get install npm"
	(cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

mkdir -p "$out"
if [ ! -f "$out/fixture-report.html" ] || [ ! -f "$out/xss-report.html" ] || [ ! -f "$out/big-report.html" ]; then
	[ -x "$B/tests/test_html" ] || { echo "error: $B/tests/test_html is not built (make check builds it)"; exit 1; }
	MAPPROF_BUILD=$B "$B/tests/test_html" >/dev/null
fi

status=0
run() {
	echo "== $*"
	node "$here/check_report.mjs" "$@" || status=1
}
run sample "$out/fixture-report.html" "$out" \
	--expect round_trip:samples/round_trip.c:35:a \
	--expect round_trip:samples/round_trip.c:43:b \
	--expect repeated_alloc:samples/round_trip.c:35:a
run xss "$out/xss-report.html" "$out"
run big "$out/big-report.html" "$out"

# A real recording, once the CLI writes HTML.
if [ -x "$B/mapprof" ] && [ -x "$B/samples/round_trip" ] &&
   "$B/mapprof" report --help 2>&1 | grep -q -- '--html'; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	if (cd "$dir" && "$B/mapprof" record -o round_trip.db -- "$B/samples/round_trip" >/dev/null &&
	    "$B/mapprof" report --html "$out/round_trip-report.html" round_trip.db >/dev/null); then
		run sample "$out/round_trip-report.html" "$out/round_trip" --require-lines
	else
		echo "error: cannot record and report samples/round_trip"
		status=1
	fi
	# A real recording of a program whose path and arguments are hostile.
	evil="$dir/<script>window.__xss=1</script>\"q"
	mkdir -p "$evil"
	cp "$B/samples/round_trip" "$evil/rt<img src=x onerror=window.__xss=2>"
	if (cd "$dir" && "$B/mapprof" record -o evil.db -- "$evil/rt<img src=x onerror=window.__xss=2>" \
		'<script>window.__xss=3</script>' '"quoted" & <b>bold</b>' >/dev/null 2>&1 &&
	    "$B/mapprof" report -q --html "$out/hostile-report.html" evil.db >/dev/null); then
		run hostile "$out/hostile-report.html" "$out"
	else
		echo "error: cannot record and report a program with a hostile path"
		status=1
	fi
else
	echo "note: 'mapprof report --html' is not available yet: checked the fixtures only"
fi
exit $status
