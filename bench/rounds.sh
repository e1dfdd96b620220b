# bench/rounds.sh - how many rounds a benchmark gives one program; sourced by
# bench/run.sh (the realistic suite) and bench/reference/run.sh.
#
# A run's noise on a small machine is milliseconds whatever the run's length,
# so a short program needs more rounds than a long one for the same interval.
# Rounds come in Williams squares of four (each side once in each position).

# more_rounds I START N MIN_S MAX: status 0 when round I (from 0) of a program
# whose first round began at START (an $EPOCHREALTIME) is to run: the first N;
# then, if its rounds took under MIN_S seconds by then, to the end of the
# square, and another square whenever one ends still under it; never past MAX.
more_rounds() {
	local i=$1 start=${2/[.,]/} now=${EPOCHREALTIME/[.,]/}
	((i < $3)) && return 0
	((i >= $5)) && return 1
	((i > $3 && i % 4 != 0)) && return 0
	(((i % 4 == 0 || i == $3) && 10#$now - 10#$start < $4 * 1000000))
}
