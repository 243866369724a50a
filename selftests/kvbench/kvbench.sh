#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kvbench kselftests: load the module when it is not loaded yet,
# run the suites, and unload the module again only if this script loaded it.
#
#   functional  ./kvbench_test (arguments are passed on, e.g. -v rwlock;
#               KVBENCH_HEARTBEAT_MAX_MS bounds owner_heartbeat, default 400)
#   stress      ./kvbench_stress   (KVBENCH_STRESS_SECONDS per backend):
#               ioctl threads and io_uring threads (KVBENCH_STRESS_URING)
#   fuzz        ./kvbench_fuzz     (KVBENCH_FUZZ_OPS ops, KVBENCH_FUZZ_SEED):
#               random ioctls and bursts of io_uring commands (left out
#               without io_uring or a module built without them)
#   trace       ./kvbench_trace: the trace events, through a tracefs
#               instance (skips without tracefs or the events)
#   uring       ./kvbench_uring: the io_uring commands (skips without
#               io_uring or a module built without them)
#   lifecycle   ./kvbench_lifecycle.sh: loads and unloads the module itself,
#               so it runs last, after this script has unloaded it
#   faults      ./kvbench_faults: fail-nth walk over every failure point
#               (needs fault injection: the debug kernel; not a default)
#   stress-faults  ./kvbench_stress with failslab and fail_usercopy
#               failing KVBENCH_FAULTS_PERCENT (default 2) percent of the
#               stress threads' failure points (not a default)
#
# KVBENCH_KO=<path>/kvbench.ko  insmod that file instead of "modprobe kvbench".
# KVBENCH_INSMOD=<program>  what loads KVBENCH_KO instead of insmod (make
# check's debug boot: one that also turns the kvbench trace events on).
# KVBENCH_SUITES="functional uring stress fuzz trace lifecycle"  the suites to run
# (that is the default).
#
# Each suite prints its own KTAP. On a debug kernel (one with lockdep) the
# fuzzer does KVBENCH_FUZZ_OPS_DEBUG (100000) ops unless KVBENCH_FUZZ_OPS
# says otherwise.
#
# Exit status: 0 when every suite that ran passed, 1 when one failed; 4
# (KSFT_SKIP) when the tests cannot run here (not root, no module support,
# module not available).

dir=$(dirname "$0")
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$dir/lib.sh"

skip()
{
	echo "$0: SKIP: $*" >&2
	exit $ksft_skip
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	kvb_finish $? 2 "$0: rmmod kvbench failed"
}

kvb_traps cleanup

if [ "$(id -u)" -ne 0 ]; then
	skip "must be run as root"
fi

for prog in kvbench_test kvbench_stress kvbench_fuzz kvbench_faults \
	kvbench_trace kvbench_uring kvbench_lifecycle.sh; do
	if [ ! -x "$dir/$prog" ]; then
		echo "$0: $dir/$prog not found: run make first" >&2
		exit 1
	fi
done

kvb_setup
case $? in
0) ;;
"$ksft_skip") skip "$kvb_why" ;;
*) echo "$0: $kvb_why" >&2; exit 1 ;;
esac

suites=${KVBENCH_SUITES:-functional uring stress fuzz trace lifecycle}
status=0
ran=0

# run NAME CMD...: run one suite, fold its exit status into ours, and say
# how long it took (make check only times whole boots' suites).
run()
{
	name=$1
	shift
	echo "# kvbench.sh: $name: $*"
	t0=$(date +%s)
	"$@"
	st=$?
	case $st in
	0) ran=1 ;;
	"$ksft_skip") echo "# kvbench.sh: $name skipped" ;;
	*) ran=1; status=1; echo "# kvbench.sh: $name failed (status $st)" ;;
	esac
	echo "# kvbench.sh: $name took $(($(date +%s) - t0)) s"
}

# stress_faults: the stress suite while failslab and fail_usercopy fail
# KVBENCH_FAULTS_PERCENT percent of the failure points its threads reach
# (task-filter: only those that ask, through make-it-fail). The knobs are
# put back afterwards.
# shellcheck disable=SC2317 # called through run()
stress_faults()
{
	dbg=/sys/kernel/debug
	if [ ! -w "$dbg/failslab/probability" ] ||
	   [ ! -w "$dbg/fail_usercopy/probability" ]; then
		echo "# kvbench.sh: stress-faults: no failslab or fail_usercopy in debugfs"
		return "$ksft_skip"
	fi
	knobs="failslab/probability failslab/interval failslab/times
	       failslab/task-filter failslab/verbose failslab/ignore-gfp-wait
	       fail_usercopy/probability fail_usercopy/interval
	       fail_usercopy/times fail_usercopy/task-filter fail_usercopy/verbose"
	saved=
	for k in $knobs; do
		saved="$saved $k=$(cat "$dbg/$k")"
	done
	for a in failslab fail_usercopy; do
		echo 1 >"$dbg/$a/interval"
		echo -1 >"$dbg/$a/times"
		echo Y >"$dbg/$a/task-filter"
		echo 0 >"$dbg/$a/verbose"
		echo "${KVBENCH_FAULTS_PERCENT:-2}" >"$dbg/$a/probability"
	done
	echo N >"$dbg/failslab/ignore-gfp-wait"
	KVBENCH_STRESS_FAULTS=1 \
		KVBENCH_STRESS_SECONDS=${KVBENCH_STRESS_SECONDS:-3} \
		"$dir/kvbench_stress"
	st=$?
	for kv in $saved; do
		echo "${kv#*=}" >"$dbg/${kv%%=*}"
	done
	return "$st"
}

if [ -e /proc/lockdep ] && [ -z "$KVBENCH_FUZZ_OPS" ]; then
	KVBENCH_FUZZ_OPS=${KVBENCH_FUZZ_OPS_DEBUG:-100000}
	export KVBENCH_FUZZ_OPS
fi

for suite in $suites; do
	case $suite in
	functional) run "$suite" "$dir/kvbench_test" "$@" ;;
	stress) run "$suite" "$dir/kvbench_stress" ;;
	fuzz) run "$suite" "$dir/kvbench_fuzz" ;;
	trace) run "$suite" "$dir/kvbench_trace" ;;
	uring) run "$suite" "$dir/kvbench_uring" ;;
	faults) run "$suite" "$dir/kvbench_faults" ;;
	stress-faults) run "$suite" stress_faults ;;
	lifecycle) ;;
	*) echo "$0: unknown suite '$suite'" >&2; status=1 ;;
	esac
done

case " $suites " in
*" lifecycle "*)
	# It loads and unloads the module itself; a module it finds loaded
	# it unloads and loads again at the end.
	kvb_teardown || status=1
	run lifecycle "$dir/kvbench_lifecycle.sh"
	;;
esac

if [ "$ran" = 0 ] && [ "$status" = 0 ]; then
	exit $ksft_skip
fi
exit $status
