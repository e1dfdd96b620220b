#!/usr/bin/env bash
# plans_advice_direction.sh - advice follows a round trip's direction
# (issue #25, observation 3).
#
# tests/hazards/swap_grids.c swaps two grids after every sweep: each grid
# the device computed comes back and is sent again, a device->host->device
# round trip.  Keeping such data on the device must bring it back with
# 'target update from' (as the plans' patches do) or map it 'tofrom':
# 'map(to: ...)' alone loses the results.  Checked: report.json's advice for those findings, and the
# page's "Typical fix" (static/js/detail.js's fixHint, run under node with
# a stand-in for the DOM) for each round-trip flavour.
. "$(dirname "$0")/lib.sh"

bin=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
[ -x "$bin" ] || fail "no '$bin' (hint: make)"

dir=$(tmpdir)
cp "$MAPPROF_SRC/tests/hazards/swap_grids.c" "$dir/"
(cd "$dir" && ompcc -g -O1 -o swap_grids swap_grids.c) || fail "cannot compile swap_grids.c"
"$bin" record -f -o "$dir/r.db" -- "$dir/swap_grids" >/dev/null 2>"$dir/log" || fail "record failed: $(cat "$dir/log")"
"$bin" report -q --no-html --json "$dir/r.json" "$dir/r.db" 2>>"$dir/log" || fail "report failed: $(cat "$dir/log")"
n=$(jq '[.findings[] | select(.flavour == "device_host_device")] | length' "$dir/r.json")
[ "$n" -gt 0 ] || fail "swap_grids: no device->host->device round trip found"
jq -r '.findings[] | select(.flavour == "device_host_device") | .advice' "$dir/r.json" | while read -r advice; do
	grep -q "tofrom" <<<"$advice" || fail "device->host->device advice does not say tofrom: $advice"
done || exit 1
echo "report.json: $n device->host->device findings advise tofrom"

command -v node >/dev/null || skip "node is missing: the page's Typical fix cannot be run (apt-get install nodejs)"
cat >"$dir/fix.js" <<'JS'
const fs = require('fs');
const src = fs.readFileSync(process.argv[2], 'utf8');
function h(tag, cls, text) { return { parts: text === undefined || text === null ? [] : [text] }; }
function add(p) { for (let i = 1; i < arguments.length; i++) p.parts.push(arguments[i]); return p; }
function flat(n) { return typeof n === 'string' ? n : n.parts.map(flat).join(''); }
const fixHint = new Function('h', 'add', 'arr', 'has', 'locText', src + '\nreturn fixHint;')(
	h, add, x => x || [], x => x != null, l => String(l));
const r = { kind: 'round_trip', flavour: process.argv[3], variable: 'cur[0:2048]', locs: [] };
console.log(flat(fixHint(r)));
JS
dhd=$(node "$dir/fix.js" "$MAPPROF_SRC/static/js/detail.js" device_host_device) || fail "node could not run fixHint"
echo "device_host_device: $dhd"
grep -q "target update from(cur" <<<"$dhd" || fail "the page's Typical fix for a device->host->device round trip does not bring the results back with an update from"
grep -q "map(tofrom: cur" <<<"$dhd" || fail "the page's Typical fix for a device->host->device round trip does not name tofrom as the other way"
grep -q "map(to: ...) instead of" <<<"$dhd" && fail "the page's Typical fix for a device->host->device round trip says map(to:)"
hdh=$(node "$dir/fix.js" "$MAPPROF_SRC/static/js/detail.js" host_device_host) || fail "node could not run fixHint"
grep -q "map(to: ...)" <<<"$hdh" || fail "the Typical fix for a host->device->host round trip no longer says map(to:): $hdh"
echo "ok"
