#!/usr/bin/env bash
# bench_bootstrap.sh - the interval 'make bench' prints around its geometric
# mean (bench/bootstrap.c): exact where the runs leave no room for chance,
# around the point estimate where they do, and a clear error on bad input.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
boot=$MAPPROF_BUILD/bench/bootstrap
[ -x "$boot" ] || fail "$boot is not built"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# Every run 5% slower recorded, whatever the native time: no resample can differ.
awk 'BEGIN { for (i = 1; i <= 21; i++) printf "a %d %d\n", 1000 * i, 1050 * i }' >"$d/const"
assert_eq "$("$boot" <"$d/const")" "1.050 1.050" "constant ratio"

# Two programs, ratios 1.00 and 1.21: the geometric mean is 1.10.
awk 'BEGIN { for (i = 1; i <= 15; i++) printf "a %d %d\nb %d %d\n", 100 * i, 100 * i, 100 * i, 121 * i }' >"$d/two"
assert_eq "$("$boot" <"$d/two")" "1.100 1.100" "two programs"

# Noisy runs: a real interval, low < high, around the bench's own statistic.
awk 'BEGIN { srand(7); for (i = 0; i < 31; i++) printf "a %d %d\n", 10000 + 2000 * rand(), 10500 + 2000 * rand() }' >"$d/noisy"
read -r lo hi < <("$boot" <"$d/noisy")
point=$(sort -k2,2n "$d/noisy" | awk '{ n[NR] = $2 } END { print n[16] }')
point=$(awk -v r="$(sort -k3,3n "$d/noisy" | awk 'NR == 16 { print $3 }')" -v n="$point" 'BEGIN { printf "%.3f", r / n }')
awk -v lo="$lo" -v hi="$hi" -v p="$point" 'BEGIN { exit !(lo < hi && lo <= p && p <= hi) }' ||
	fail "noisy runs: interval $lo-$hi should be wider than a point and hold $point"
# Reproducible: a fixed seed.
assert_eq "$("$boot" <"$d/noisy")" "$lo $hi" "same runs, same interval"

# -r: a program's ratio is the median of its per-iteration ratios (1.5, 2,
# 1: 1.5), not the ratio of its medians (200 / 100); -e: one line a program,
# then the geometric mean, each with its interval.
printf 'a 100 150\na 100 200\na 400 400\n' >"$d/pairs"
assert_eq "$("$boot" -e <"$d/pairs" | head -n 1 | cut -d' ' -f1,2)" "a 2.000" "ratio of medians"
assert_eq "$("$boot" -r -e <"$d/pairs" | head -n 1 | cut -d' ' -f1,2)" "a 1.500" "median of ratios"
awk 'BEGIN { for (i = 1; i <= 9; i++) printf "a %d %d\nb %d %d\n", 100 * i, 100 * i, 100 * i, 121 * i }' >"$d/two9"
assert_eq "$("$boot" -r -e <"$d/two9")" "$(printf 'a 1.000 1.000 1.000\nb 1.210 1.210 1.210\ngeomean 1.100 1.100 1.100')" \
	"per program and geometric mean"
"$boot" -r -e <"$d/noisy" | awk 'NR == 1 { exit !($3 <= $2 && $2 <= $4 && $3 < $4) }' ||
	fail "noisy runs, -r -e: the interval should hold the point: $("$boot" -r -e <"$d/noisy" | head -n 1)"
if "$boot" -x <"$d/pairs" >/dev/null 2>"$d/err"; then fail "an unknown option was accepted"; fi
grep -q "usage: bootstrap" "$d/err" || fail "error: $(cat "$d/err")"

# Bad input is refused with the line that is wrong.
printf 'a 100 105\na 100\n' >"$d/bad"
if "$boot" <"$d/bad" >/dev/null 2>"$d/err"; then fail "a line without a recorded time was accepted"; fi
grep -q "line 2: expected 'PROGRAM NATIVE_NS RECORDED_NS'" "$d/err" || fail "error: $(cat "$d/err")"
printf 'a 0 105\n' >"$d/zero"
if "$boot" <"$d/zero" >/dev/null 2>"$d/err"; then fail "a zero time was accepted"; fi
grep -q "line 1: times must be positive" "$d/err" || fail "error: $(cat "$d/err")"
echo "bench bootstrap: ok ($lo-$hi around $point)"
