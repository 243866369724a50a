#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - `make check`: build everything, run every test suite, print a
# per-suite summary whose last line is "N passed, N failed".
#
# Host suites run here; suites that need the module run inside a VM booted
# by kvbench-vm (one boot per guest kernel), or, only when asked with
# NATIVE=1, on this machine's own kernel.
#
# The boots, one row each in the summary (KVBENCH_CHECK_DRY_RUN=1 lists
# them with their sets):
#   <6.12>   the newest Debian 6.12, the primary kernel: the full set, every
#            suite on every backend, and the kselftest framework's runner
#   <6.1>    the Debian 6.1 of linux-headers-amd64: the core set
#   <6.12-rt>  Debian 6.12's PREEMPT_RT flavour of the same version: core
#   <7.2>    the newest Debian 7.2 of unstable (KVER72 overrides), its own
#            image; the module is built in a cached chroot of unstable
#            (kvbench-vm kmake): core
#   <arm64>  Debian 6.12's arm64 flavour of the same version, on QEMU's
#            virt machine (TCG emulating a -cpu max aarch64, 2 vCPUs):
#            core. The module is cross-built against Debian's arm64
#            headers (kvbench-vm kmake), the selftests and the tool
#            statically; kvbench-vm fetches the arm64 packages into the
#            cache (KVBENCH_ARCH)
#   smp4     the primary kernel with 4 vCPUs: the suites where the number of
#            CPUs matters
#   debug    the debug kernel (KASAN, lockdep, kmemleak, fault injection,
#            KUnit): kvbench.sh's suites, KUnit and the fault-injection
#            suites, every one with the kvbench trace events on (the long
#            tier adds the tool's suites, the full set)
#   kcsan    the KCSAN kernel: KUnit and the concurrent suites
# The core set shows that the module works on a kernel: the functional
# suite (load, the ABI and the switch matrix, on every backend), the
# io_uring commands, a shorter stress suite, a short fuzz and the trace suite
# (3 s), whose owner_waits test checks from the scheduler's events that a
# request through an owner waits for nothing but the owner's work: the
# question PREEMPT_RT raises (Documentation/design.rst), and whose
# owner_slow_wakeups test counts the sleeps in GETs whose hand-offs the
# module's debugfs knobs make slow, as RT's were in issue 48's stall. What
# does not need to gate every commit waits for the long tier.
#
# Environment:
#   CHECK_TIER     gate (default) or long (`make check-long`): the full set
#                  on every stock kernel, and on the debug kernel the
#                  fuzzer's and the lifecycle suite's own lengths (100,000
#                  ops and 50 load/unload cycles, against the gate's 25,000
#                  and 15), and on a stock kernel's full set 1,000,000
#                  fuzz ops (against 200,000), and the host test of
#                  kvbench-vm run --out (three boots of its own) and make
#                  icount-check (tools/vm/icount.sh: an icount boot, about
#                  30 s: instructions per op against the record). The
#                  core set fuzzes 50,000 ops in both tiers
#   KVERS          stock kernels, space separated, one boot each with the
#                  full set (default: the rows above); an arm64 version
#                  (6.12.*-arm64) boots on the virt machine
#   KVER72         the 7.2 boot's kernel (default: the newest 7.2.* amd64
#                  kernel of Debian unstable, `kvbench-vm kver-sid 7.2`)
#   CHECK_ONLY     rows to run, space separated, of: 6.12 6.1 6.12-rt 7.2
#                  arm64 (a KVERS boot by its version) smp4 debug kcsan
#                  host (the host suites) lint; the summary has only those
#                  (default: all). E.g. CHECK_ONLY=7.2: the 7.2 boot alone,
#                  CHECK_ONLY=arm64 the arm64 boot alone
#   NATIVE         1: load the module into this kernel and run the guest
#                  suites here instead of in VMs (default: VMs). The fuzzer
#                  and the lifecycle suite (load/unload cycles, SIGKILLed
#                  benchmarks) run natively only with KVBENCH_DESTRUCTIVE=1
#   KVBENCH_CHECK_DRY_RUN  1: print where the guest suites would run, and
#                  stop
#   CHECK_TIMEOUT  seconds a VM may run (default 3600)
#   KVBENCH_STALL_TIMEOUT  seconds a guest suite may print nothing (60 once
#                  the kernel has reported a lockup) before kvbench-vm dumps
#                  the guest's tasks and backtraces (sysrq w, l, t) into the
#                  console log and ends the VM: that suite fails as
#                  "stalled", the VM's later suites did not run (default
#                  120; 0: only CHECK_TIMEOUT ends a stuck VM)
#   KVBENCH_CACHE  cache directory (default ~/.cache/kvbench); logs go to
#                  $KVBENCH_CACHE/logs/
#
# Progress goes to stderr; test output and the summary go to stdout.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly VM=$REPO/tools/vm/kvbench-vm
readonly CACHE=${KVBENCH_CACHE:-$HOME/.cache/kvbench}
readonly TIMEOUT=${CHECK_TIMEOUT:-3600}
readonly STALL=${KVBENCH_STALL_TIMEOUT:-120}
readonly TIER=${CHECK_TIER:-gate}
case $TIER in
gate | long) ;;
*) echo "check.sh: CHECK_TIER=$TIER: not gate or long" >&2; exit 2 ;;
esac

step() { printf '==> %s\n' "$*" >&2; }

LOGDIR=$CACHE/logs/check-$(date -u +%Y%m%dT%H%M%SZ)
readonly LOGDIR
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-check.XXXXXX")
readonly WORK
# The rows that run in the background (bg_start): process groups, rows,
# logs and start times.
BG_PIDS=() BG_ROWS=() BG_LOGS=() BG_T0S=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local pid

	for pid in "${BG_PIDS[@]}"; do
		kill -- "-$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$LOGDIR"
# Keep the logs of the last 20 runs.
find "$CACHE/logs" -mindepth 1 -maxdepth 1 -name 'check-*' -print0 |
	sort -z | head -z -n -20 | xargs -0r rm -rf

# One row per suite; a suite counts at least one failure whenever it did
# not run to the end of its plan cleanly.
# TIMES: the seconds the suite took, when known (from NEXT_TIME, which
# record() consumes).
NAMES=() PASS=() FAIL=() SKIP=() NOTES=() TIMES=() NEXT_TIME=
record() {
	NAMES+=("$1") PASS+=("$2") FAIL+=("$3") SKIP+=("$4") NOTES+=("${5:-}")
	TIMES+=("$NEXT_TIME")
	NEXT_TIME=
}

# count_tap NAME FILE STATUS: count the TAP/KTAP result lines of FILE (the
# output of a suite that exited with STATUS) and record them.
count_tap() {
	local name=$1 file=$2 status=$3 pass fail skip seen planned whole_skip note=''
	read -r pass fail skip seen planned whole_skip < <(awk '
		/^ok [0-9]+/ || /^not ok [0-9]+/ {
			seen++
			d = toupper($0); sub(/^[^#]*/, "", d)
			if (d ~ /^# *SKIP/) skip++
			else if (d ~ /^# *TODO/) skip++
			else if ($1 == "ok") pass++
			else fail++
			next
		}
		/^1\.\.[0-9]+/ {
			n = substr($1, 4) + 0; planned += n
			if (n == 0) whole_skip = 1
		}
		END { printf "%d %d %d %d %d %d\n", pass, fail, skip, seen, planned, whole_skip }
	' "$file")
	if [[ $seen -eq 0 && ($status -eq 4 || $whole_skip -eq 1) ]]; then
		# make check provides root and the module: a suite that skips
		# itself entirely here means something is broken.
		note="the suite skipped itself (status $status)"
		fail=1
	elif [[ $seen -eq 0 ]]; then
		note="no test results (status $status)"
		fail=1
	elif [[ $seen -lt $planned ]]; then
		note="stopped after $seen of $planned planned tests"
		fail=$((fail + planned - seen))
	elif [[ $status -ne 0 && $fail -eq 0 ]]; then
		note="exited with status $status"
		fail=1
	fi
	record "$name" "$pass" "$fail" "$skip" "$note"
}

# count_kunit NAME FILE STATUS: let the kernel tree's kunit.py parse the KTAP
# of a KUnit suite and record its counts.
count_kunit() {
	local name=$1 file=$2 status=$3 log=$LOGDIR/kunit-parse.log line
	local pass=0 fail=0 skip=0 note=''

	python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$file" >"$log" 2>&1 || true
	line=$(grep -o 'Ran [0-9]* tests:.*' "$log" | tail -n 1)
	if [[ -z $line ]]; then
		note="kunit.py parse found no results (see $log)"
		fail=1
	else
		[[ $line =~ passed:\ ([0-9]+) ]] && pass=${BASH_REMATCH[1]}
		[[ $line =~ failed:\ ([0-9]+) ]] && fail=${BASH_REMATCH[1]}
		[[ $line =~ crashed:\ ([0-9]+) ]] && fail=$((fail + BASH_REMATCH[1]))
		[[ $line =~ errors:\ ([0-9]+) ]] && fail=$((fail + BASH_REMATCH[1]))
		[[ $line =~ skipped:\ ([0-9]+) ]] && skip=${BASH_REMATCH[1]}
		if [[ $status -ne 0 && $fail -eq 0 ]]; then
			note="exited with status $status"
			fail=1
		fi
	fi
	grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete' "$log" | sed 's/^/  /' >&2 || true
	record "$name" "$pass" "$fail" "$skip" "$note"
}

count_suite() {
	case $1 in
	*kunit:*) count_kunit "$@" ;;
	*) count_tap "$@" ;;
	esac
}

# build NAME CMD...: run a build step; a failed build is a failed suite.
build() {
	local name=$1 log t0=$SECONDS
	shift
	log=$LOGDIR/build-${name//[^a-zA-Z0-9.+-]/_}.log
	step "build: $name"
	if "$@" >"$log" 2>&1; then
		step "build: $name: $((SECONDS - t0)) s"
		return 0
	fi
	cat "$log" >&2
	NEXT_TIME=$((SECONDS - t0))
	record "build: $name" 0 1 0 "see $log"
	return 1
}

# Host suites --------------------------------------------------------------

host_suites() {
	local out=$LOGDIR/host-tool.log status=0 t0=$SECONDS
	step "host: tools/kvbench unit tests"
	make -s --no-print-directory -C "$REPO/tools/kvbench" test 2>&1 |
		tee "$out" || status=$?
	NEXT_TIME=$((SECONDS - t0))
	count_tap "host: tools/kvbench test" "$out" "$status"

	out=$LOGDIR/host-entry.log status=0 t0=$SECONDS
	step "host: entry points (make without headers, where make check runs)"
	"$REPO/tools/vm/entry-test.sh" 2>&1 | tee "$out" || status=$?
	NEXT_TIME=$((SECONDS - t0))
	count_tap "host: entry points" "$out" "$status"

	# Three boots of their own (about 50 s) for a part of the VM runner
	# that no commit but one to kvbench-vm touches: the long tier's.
	[[ $TIER == long ]] || return 0
	out=$LOGDIR/host-vm-out.log status=0 t0=$SECONDS
	step "host: kvbench-vm run --out (three stock boots: the end, --timeout, TERM)"
	"$REPO/tools/vm/vm-out-test.sh" 2>&1 | tee "$out" || status=$?
	NEXT_TIME=$((SECONDS - t0))
	count_tap "host: kvbench-vm --out" "$out" "$status"

	out=$LOGDIR/host-icount.log status=0 t0=$SECONDS
	step "host: make icount-check (an icount boot: instructions per op against tools/vm/icount-baseline.txt)"
	"$REPO/tools/vm/icount.sh" check 2>&1 | tee "$out" || status=$?
	NEXT_TIME=$((SECONDS - t0))
	count_tap "host: icount-check" "$out" "$status"
}

# bg_start ROW LOG CMD...: a row that runs in the background at idle
# priority (SCHED_IDLE): it gets the CPU time the boots leave, which is
# much, as a boot's tests often sleep or keep one vCPU of two busy. Only
# for what touches nothing the boots use: the lint gates build fresh copies
# of the tree (and wait on debug-kernel.sh's lock while the debug kernel
# they build against is being built in the background), the DKMS check
# builds its copy in /usr/src. bg_finish waits for each and records its
# row, with the wall time from its start to its end (its log's last write).
bg_start() {
	local row=$1 log=$2

	shift 2
	step "$row, in the background at idle priority (log: $log)"
	BG_T0S+=("$(date +%s)")
	chrt --idle 0 setsid "$@" >"$log" 2>&1 &
	BG_PIDS+=("$!") BG_ROWS+=("${row%% (*}") BG_LOGS+=("$log")
}

bg_finish() {
	local i status took

	for i in "${!BG_PIDS[@]}"; do
		status=0
		step "${BG_ROWS[i]}: waiting for the background run to end"
		wait "${BG_PIDS[i]}" || status=$?
		cat "${BG_LOGS[i]}"
		took=$(($(stat -c %Y "${BG_LOGS[i]}") - BG_T0S[i]))
		NEXT_TIME=$took
		count_tap "${BG_ROWS[i]}" "${BG_LOGS[i]}" "$status"
		NOTES[-1]="in the background; it ended $(($(date +%s) - BG_T0S[i] - took)) s before the boots did${NOTES[-1]:+; ${NOTES[-1]}}"
	done
	BG_PIDS=()
}

# Guest suites -------------------------------------------------------------

# The suites that need the module, as NAME and a command run by sh from the
# payload directory (the module is ./kvbench.ko there). A NAME starting
# with "kunit:" is counted by the kernel tree's own `kunit.py parse`.
# kvbench.sh runs its default suites: functional, uring (the io_uring
# commands), stress, fuzz, trace (the trace events, through tracefs) and
# lifecycle.
# The gate's lengths, where the long tier leaves the suites' own: a stock
# kernel's fuzz (kvbench_fuzz's 1,000,000 ops took 219 s of a 6.12 boot
# here), and the debug kernel's fuzz and load/unload cycles.
# The gate leaves owner_heartbeat_long_pass (a map of 65,536 keys per
# owner, walked in two buckets: 20-30 s of a stock boot, 90 s of the debug
# kernel's with three owner-like backends) to the stock 6.12 boot: the
# scheduling point it checks is the same code on every kernel, and on the
# debug kernel it times the instrumentation more than the owners.
STOCK_ENV='' DEBUG_ENV='' SHORT_ARGS=''
if [[ $TIER == gate ]]; then
	STOCK_ENV="KVBENCH_FUZZ_OPS=200000 "
	DEBUG_ENV="KVBENCH_FUZZ_OPS_DEBUG=25000 KVBENCH_CYCLES=15 "
	SHORT_ARGS=" -T owner_heartbeat_long_pass"
fi
# shellcheck disable=SC2016 # expanded in the guest
STOCK_SUITES=(
	"kselftest: kvbench"
	"cd selftests && ${STOCK_ENV}KVBENCH_KO=\$KVBENCH_PAYLOAD/kvbench.ko ./kvbench.sh"
	"kselftest: kvbench_bench.sh"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko ./kvbench_bench.sh'
	"smoke: kvbench bench"
	'KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko ./smoke.sh "$KVBENCH_PAYLOAD"'
)
# The core set (see the top). KVBENCH_CORE_FUZZ_OPS: the short fuzz;
# KVBENCH_CORE_STRESS_SECONDS: each stress phase (5 s on the boots that
# run the full set), 15 s of 25 per boot.
readonly KVBENCH_CORE_FUZZ_OPS=50000 KVBENCH_CORE_STRESS_SECONDS=3
# shellcheck disable=SC2016 # expanded in the guest
CORE_SUITES=(
	"kselftest: kvbench core (functional, uring, stress, short fuzz, trace)"
	"cd selftests && KVBENCH_KO=\$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES='functional uring stress fuzz trace' KVBENCH_FUZZ_OPS=$KVBENCH_CORE_FUZZ_OPS KVBENCH_STRESS_SECONDS=$KVBENCH_CORE_STRESS_SECONDS ./kvbench.sh$SHORT_ARGS"
)
# shellcheck disable=SC2016 # expanded in the guest
KUNIT_SUITE=(
	"kunit: kvbench"
	'${KVBENCH_INSMOD:-insmod} kvbench.ko && insmod kvbench_kunit.ko && cat /sys/kernel/debug/kunit/kvbench/results; rmmod kvbench_kunit; rmmod kvbench'
)
# The debug kernel runs kvbench.sh's suites at DEBUG_ENV's lengths, and
# adds the fault-injection walk and the stress suite under probabilistic
# fault injection (selftests/kvbench/kvbench_faults.c); every suite with
# the kvbench trace events on (TRACE_EVENTS). The tool's suites
# (kvbench_bench.sh, the smoke: 61 s of this boot) wait for the long tier
# there: the module paths they reach, the debug boot's functional, io_uring
# and stress suites reach too, and the stock boots run them at every gate.
# shellcheck disable=SC2016 # expanded in the guest
DEBUG_SUITES=(
	"${KUNIT_SUITE[@]}"
	"${STOCK_SUITES[0]}"
	"cd selftests && ${DEBUG_ENV}KVBENCH_KO=\$KVBENCH_PAYLOAD/kvbench.ko ./kvbench.sh$SHORT_ARGS"
	"kselftest: kvbench faults (fail-nth walk, stress under failslab and fail_usercopy)"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES="faults stress-faults" ./kvbench.sh'
)
[[ $TIER == gate ]] || DEBUG_SUITES+=("${STOCK_SUITES[@]:2}")
# The KCSAN kernel: the suites where the module runs concurrently, on every
# backend: KUnit (its concurrent case), the stress suite, the switch
# matrix with the functional tests that switch or count under load, and the
# io_uring commands (owners answering while their submitters go on;
# allnoconfig keeps CONFIG_IO_URING, whose prompt needs EXPERT, at y).
# shellcheck disable=SC2016 # expanded in the guest
KCSAN_SUITES=(
	"${KUNIT_SUITE[@]}"
	"kselftest: kvbench stress"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES=stress ./kvbench.sh'
	"kselftest: kvbench switch matrix, switch and statistics under load"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES=functional ./kvbench.sh -t switch_matrix -t switch_under_load -t stats_concurrent -t switch_keeps_entries'
	"kselftest: kvbench io_uring commands"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES=uring ./kvbench.sh'
)
# KCSAN reports that name our code fail the boot; one whose title names
# only the kernel's own functions (no "[module]") is listed, not failed.
readonly KCSAN_ALLOW='BUG: KCSAN: [^[]*$'
# One boot of the stock kernel with 4 vCPUs (on the host's 2 cores under
# TCG: function only, no timings asserted): the suites where the number of
# CPUs matters. The heartbeat test's largest gaps go into the summary.
# shellcheck disable=SC2016 # expanded in the guest
SMP4_SUITES=(
	"kselftest: kvbench stress"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES=stress ./kvbench.sh'
	"kselftest: kvbench switch matrix, owner threads, heartbeat"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_SUITES=functional ./kvbench.sh -t switch_matrix -t switch_under_load -t owner_threads -t owners_param -t owner_heartbeat'
	"kselftest: kvbench_bench.sh at 4 threads"
	'cd selftests && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko KVBENCH_BENCH_THREADS=4 ./kvbench_bench.sh'
)
readonly SMP4=4
# Extra options of the next vm_suites' kvbench-vm run, its vCPUs and, when
# LABEL is not one, the stock kernel version to boot.
VM_ARGS=()
VM_SMP=
VM_KVER=
# The kselftest framework's path, once (first stock kernel): the install
# dir that kselftest_tree() made, run by its run_kselftest.sh. The runner
# prints one test line per TEST_PROGS script (their own KTAP nested under
# "# "); the io_uring suite (the installed build's programs, on every
# backend; the functional suite already ran in the same boot) and a short
# benchmark keep it fast.
# shellcheck disable=SC2016 # expanded in the guest
KSFT_SUITES=(
	"kselftest: run_kselftest.sh -c kvbench (installed)"
	'./ksft-env.sh && cd kselftest && KVBENCH_KO=$KVBENCH_PAYLOAD/kvbench.ko \
	 KVBENCH_CLI=$KVBENCH_PAYLOAD/kvbench KVBENCH_SUITES=uring \
	 KVBENCH_BENCH_DURATION=0.2s ./run_kselftest.sh -c kvbench'
)
GUEST_SUITES=("${STOCK_SUITES[@]}")
# 1: the next payload's driver runs its suites with every kvbench trace
# event on (write_trace_insmod), as the debug boot does: the events read
# the requests they report, on every path, under KASAN.
TRACE_EVENTS=

# write_trace_insmod DIR: DIR/insmod, the guest's KVBENCH_INSMOD when
# TRACE_EVENTS is 1: insmod, then, once the module's events exist, every
# kvbench event turned on in the top-level trace buffer. Every script that
# loads the module takes KVBENCH_INSMOD (kvbench.sh, kvbench_bench.sh, the
# lifecycle suite, smoke.sh, the KUnit row): busybox's sh runs its own
# insmod applet whatever PATH says, so a wrapper must be named by path.
# Each load has its events off, so each load turns them on again. A suite
# that traces (the trace suite) uses an instance of its own and is not
# touched.
# shellcheck disable=SC2016 # expanded in the guest
write_trace_insmod() {
	mkdir -p "$1"
	printf '%s\n' '#!/bin/sh' \
		'# Generated by tools/vm/check.sh: insmod with the kvbench trace events on.' \
		'insmod "$@" || exit' \
		'for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do' \
		'	[ -e "$t/events/kvbench/enable" ] || continue' \
		'	echo 1 >"$t/events/kvbench/enable" || exit' \
		'	break' \
		'done' \
		'exit 0' >"$1/insmod"
	chmod +x "$1/insmod"
}

# Write the payload's driver: it runs each guest suite between marker lines
# that split_suites() reads back, and always exits 0.
# shellcheck disable=SC2016 # the generated script expands them
write_driver() {
	local i
	{
		printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-2.0\n'
		printf '# Generated by tools/vm/check.sh: runs the guest suites.\n'
		printf 'KVBENCH_PAYLOAD=$(cd "$(dirname "$0")" && pwd)\nexport KVBENCH_PAYLOAD\n'
		if [[ $TRACE_EVENTS == 1 ]]; then
			printf 'KVBENCH_INSMOD=$KVBENCH_PAYLOAD/trace-events/insmod\nexport KVBENCH_INSMOD\n'
			printf 'echo "# kvbench trace events on at every load (KVBENCH_INSMOD=trace-events/insmod)"\n'
		fi
		for ((i = 0; i < ${#GUEST_SUITES[@]}; i += 2)); do
			printf 'echo "<kvbench-suite:%d> %s"\n' "$((i / 2))" "${GUEST_SUITES[i]}"
			printf 't0=$(date +%%s)\n'
			printf '(cd "$KVBENCH_PAYLOAD" && %s) 2>&1\n' "${GUEST_SUITES[i + 1]}"
			printf 'st=$?\n'
			printf 'printf "\\n<kvbench-suite-time:%d %%d>\\n" "$(($(date +%%s) - t0))"\n' "$((i / 2))"
			printf 'printf "</kvbench-suite:%d %%d>\\n" "$st"\n' "$((i / 2))"
		done
	} >"$1"
	chmod +x "$1"
}

# split_suites OUTPUT PREFIX [WHY]: record each guest suite found in OUTPUT;
# a suite that never started or never finished counts as failed, the latter
# with WHY (default: crash or timeout) in its note.
split_suites() {
	local out=$1 prefix=$2 why=${3:-crash or timeout} i file status parts
	for ((i = 0; i < ${#GUEST_SUITES[@]}; i += 2)); do
		file=$WORK/suite-$((i / 2)).out
		awk -v n="$((i / 2))" '
			$0 ~ "^</kvbench-suite:" n " " { exit }
			on { print }
			$0 ~ "^<kvbench-suite:" n ">( |$)" { on = 1 }
		' "$out" >"$file"
		status=$(sed -n "s|^</kvbench-suite:$((i / 2)) \\([0-9]*\\)>\$|\\1|p" "$out")
		NEXT_TIME=$(sed -n "s|^<kvbench-suite-time:$((i / 2)) \\([0-9]*\\)>\$|\\1|p" "$out")
		if ! grep -Eq "^<kvbench-suite:$((i / 2))>( |\$)" "$out"; then
			record "$prefix${GUEST_SUITES[i]}" 0 1 0 "did not run"
		elif [[ -z $status ]]; then
			count_suite "$prefix${GUEST_SUITES[i]}" "$file" 0
			FAIL[-1]=$((FAIL[-1] + 1))
			NOTES[-1]="did not finish ($why)${NOTES[-1]:+; ${NOTES[-1]}}"
		else
			count_suite "$prefix${GUEST_SUITES[i]}" "$file" "$status"
		fi
		parts=$(suite_parts "$file")
		[[ -z $parts ]] || NOTES[-1]="${NOTES[-1]:+${NOTES[-1]}; }$parts"
	done
}

# suite_parts FILE: "functional 610 s, fuzz 95 s, ..." from the seconds
# kvbench.sh gives each part of a suite, when it ran more than one.
suite_parts() {
	sed -n 's/^# kvbench\.sh: \([a-z-]*\) took \([0-9]*\) s$/\1 \2 s/p' "$1" |
		awk '{ p = p (NR > 1 ? ", " : "") $0 } END { if (NR > 1) print p }'
}

# Everything the guest needs: the module, the tool, the selftests, the
# driver. With CROSS (a guest of another architecture, see cross_build):
# the programs cross_build made, and not the host's kselftest install.
make_payload() {
	local dir=$1 cross=${2:-} tool=$REPO/tools/kvbench
	mkdir -p "$dir"
	cp "$REPO/module/kvbench.ko" "$dir/"
	if [[ -f $REPO/module/kvbench_kunit.ko ]]; then
		cp "$REPO/module/kvbench_kunit.ko" "$dir/"
	fi
	[[ -z $cross ]] || tool=$REPO/tools/kvbench/cross
	cp "$tool/kvbench" "$tool/kvbench-test" "$REPO/tools/kvbench/smoke.sh" "$dir/"
	cp -a "$REPO/selftests/kvbench" "$dir/selftests"
	if [[ -n $cross ]]; then
		cp "$WORK/cross-selftests"/* "$dir/selftests/"
	elif [[ -d $WORK/kselftest-install ]]; then
		cp -a "$WORK/kselftest-install" "$dir/kselftest"
	fi
	# kvbench_bench.sh prints its KTAP with the framework's helpers, found
	# at ../kselftest/ as in a kernel tree (the kernel's file, not a copy
	# kept in this repository).
	mkdir -p "$dir/kselftest"
	cp "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$dir/kselftest/"
	write_ksft_env "$dir"
	[[ $TRACE_EVENTS != 1 ]] || write_trace_insmod "$dir/trace-events"
	write_driver "$dir/run-suites.sh"
}

# The guest is busybox: give run_kselftest.sh what a distribution has and
# its runner expects, without touching a real system (native runs): a
# /usr/bin/timeout that knows --foreground (coreutils', shipped in the
# payload) instead of busybox's, and /dev/stdout (its default log file).
write_ksft_env() {
	mkdir -p "$1/ksft-env"
	cp /usr/bin/timeout "$1/ksft-env/timeout"
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s\n' '#!/bin/sh' \
		'# Generated by make check: prepares the guest for run_kselftest.sh.' \
		'dir=$(cd "$(dirname "$0")" && pwd)' \
		'if [ "$(readlink /usr/bin/timeout)" = /bin/busybox ]; then' \
		'	rm -f /usr/bin/timeout && cp "$dir/ksft-env/timeout" /usr/bin/timeout' \
		'fi' \
		'[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout' \
		'[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr' >"$1/ksft-env.sh"
	chmod +x "$1/ksft-env.sh"
}

# cross_build PREFIX SYSROOT: the tool (tools/kvbench/cross/) and the
# selftests ($WORK/cross-selftests/) for another architecture, static,
# with the cross compiler PREFIX and the liburing unpacked in SYSROOT
# (kvbench-vm cross prints both).
cross_build() {
	rm -rf "$WORK/cross-selftests"
	mkdir -p "$WORK/cross-selftests"
	make -C "$REPO/tools/kvbench" cross CROSS_COMPILE="$1" SYSROOT="$2" &&
		make -C "$REPO/selftests/kvbench" KSRC="$KSRC" CROSS_COMPILE="$1" \
			LDFLAGS=-static OUTPUT="$WORK/cross-selftests"
}

# kselftest_tree: selftests/kvbench inside a kernel tree's kselftest
# framework. A copy of linux-source's top Makefile, scripts/ and
# tools/testing/selftests/ (the cached tree itself stays untouched), our
# directory copied in as tools/testing/selftests/kvbench, then
#   make -C tools/testing/selftests TARGETS=kvbench [run_tests|install]
# with KVBENCH_UAPI pointing at module/uapi. run_tests runs here too, where
# every test skips (no module support on this host): the runner must still
# print a test line for each script. The install dir goes into the payload.
kselftest_tree() {
	local tree=$WORK/linux ksft
	ksft=$tree/tools/testing/selftests
	rm -rf "$tree" "$WORK/kselftest-install"
	mkdir -p "$tree/tools/testing"
	cp -a "$KSRC/Makefile" "$KSRC/scripts" "$tree/" &&
		cp -a "$KSRC/tools/testing/selftests" "$tree/tools/testing/" &&
		cp -a "$REPO/selftests/kvbench" "$ksft/kvbench" || return 1
	make -C "$ksft" TARGETS=kvbench clean || return 1
	make -C "$ksft" TARGETS=kvbench KVBENCH_UAPI="$REPO/module/uapi" || return 1
	make -C "$ksft" TARGETS=kvbench KVBENCH_UAPI="$REPO/module/uapi" \
		run_tests >"$WORK/ksft-run_tests.out" 2>&1 || return 1
	cat "$WORK/ksft-run_tests.out"
	kselftest_expect "$WORK/ksft-run_tests.out" || return 1
	make -C "$ksft" TARGETS=kvbench KVBENCH_UAPI="$REPO/module/uapi" \
		install INSTALL_PATH="$WORK/kselftest-install" || return 1
	grep -x 'kvbench:kvbench_bench.sh' "$WORK/kselftest-install/kselftest-list.txt"
}

# kselftest_expect FILE: the runner's output in FILE has a result line for
# each of our TEST_PROGS.
kselftest_expect() {
	local prog
	for prog in kvbench.sh kvbench_bench.sh; do
		grep -Eq "^(not )?ok [0-9]+ selftests: kvbench: $prog( |\$)" "$1" ||
			{ echo "no runner line for $prog in $1"; return 1; }
	done
}

record_not_run() {
	local prefix=$1 why=$2 i
	for ((i = 0; i < ${#GUEST_SUITES[@]}; i += 2)); do
		record "$prefix${GUEST_SUITES[i]}" 0 1 0 "$why"
	done
}

# first_report CONSOLE: the first line of the first report in the kernel
# log that failed the run (its timestamp cut), for the summary, which is
# often all of a run that one gets to see.
first_report() {
	local allow=
	[[ ${VM_ARGS[0]:-} != --allow-report ]] || allow=${VM_ARGS[1]}
	"$VM" reports "$1" "$allow" | head -n 1 | sed 's/\r$//; s/^\[ *[0-9.]*\] *//'
}

# vm_suites LABEL [KDIR KERNEL]: build the module against KDIR, boot KERNEL
# (a bzImage) and run the guest suites there; without them, the stock
# kernel of KVER=VM_KVER (else LABEL), for which kvbench-vm kmake builds
# (in the chroot of Debian unstable for a kernel of unstable; for another
# architecture's kernel, with the cross compiler against its headers
# unpacked in the cache). Suites are named "[LABEL] ...".
vm_suites() {
	local label=$1 kdir=${2:-} kernel=${3:-} prefix="[$1] " payload=$WORK/payload-$1
	local out=$LOGDIR/vm-$1.out console=$LOGDIR/vm-$1.console status=0 why=
	local kver=${VM_KVER:-$1} arch crossout
	local -a kopt=() cross=() make=(make -C "$REPO" module KDIR="$kdir")
	[[ -z $kernel ]] || kopt=(--kernel "$kernel")
	[[ -n $kdir ]] || make=(env KVER="$kver" "$VM" kmake "$REPO" module)
	# The guest's architecture follows from its kernel: another than the
	# host's has a cross compiler (kvbench-vm cross prints it).
	arch=$(KVER=$kver "$VM" arch)
	if ! crossout=$(KVER=$kver "$VM" cross); then
		record_not_run "$prefix" "kvbench-vm cross failed for $arch (its message is above)"
		return
	fi
	[[ -z $crossout ]] || mapfile -t cross <<<"$crossout"
	if [[ ${#cross[@]} -gt 0 ]] &&
		! build "tool and selftests ($arch)" cross_build "${cross[@]}"; then
		record_not_run "$prefix" "the $arch programs did not build"
		return
	fi
	# A KUnit module left by an earlier build for another tree is stale.
	rm -f "$REPO/module/kvbench_kunit.ko"
	if ! build "module ($label)" "${make[@]}"; then
		record_not_run "$prefix" "module did not build"
		return
	fi
	make_payload "$payload" "${cross[0]:-}"
	step "vm: booting $label ($arch) with ${VM_SMP:-$(nproc)} vCPUs, $(KVER=$kver "$VM" accel) (console log: $console)"
	KVER=$kver "$VM" run "${kopt[@]}" "${VM_ARGS[@]}" --smp "${VM_SMP:-$(nproc)}" \
		--payload "$payload" --timeout "$TIMEOUT" \
		--stall "$STALL" --log "$console" -- ./run-suites.sh |
		tee "$out" || status=$?
	# 123: the suite that was running stopped printing (for how long:
	# kvbench-vm's message, also the last line of the console log).
	[[ $status -ne 123 ]] || why="stalled: no output; sysrq dumps in $console"
	split_suites "$out" "$prefix" "$why"
	case $status in
	0) ;;
	123) record "${prefix}vm" 0 1 0 "$why" ;;
	124) record "${prefix}vm" 0 1 0 "timed out after ${TIMEOUT}s" ;;
	126) record "${prefix}vm" 0 1 0 "kernel log shows a report: $(first_report "$console") (all of it above and in $console)" ;;
	*) record "${prefix}vm" 0 1 0 "VM run failed with status $status" ;;
	esac
}

# The kvbench.sh suites of a native run: the ones that could take the
# running kernel down with them only when asked twice.
native_kvbench_suites() {
	if [[ ${KVBENCH_DESTRUCTIVE:-} == 1 ]]; then
		echo "functional stress fuzz trace lifecycle"
	else
		echo "functional stress trace"
	fi
}

# native_suites: the same guest suites on this machine's own kernel.
native_suites() {
	local payload=$WORK/payload-native out=$LOGDIR/native.out
	if [[ -d /sys/module/kvbench ]]; then
		record_not_run "[native] " "a kvbench module is loaded already (DKMS?): rmmod kvbench first"
		return
	fi
	if ! build "module (native $(uname -r))" make -C "$REPO" module; then
		record_not_run "[native] " "module did not build"
		return
	fi
	make_payload "$payload"
	step "NATIVE=1: loading kvbench into the running kernel $(uname -r) and running suites $(native_kvbench_suites) there (fuzz and lifecycle only with KVBENCH_DESTRUCTIVE=1)"
	KVBENCH_SUITES=$(native_kvbench_suites) "$payload/run-suites.sh" | tee "$out"
	split_suites "$out" "[native] "
}

# The Debian 6.1 kernel that linux-headers-amd64 points at: the module must
# pass there too. Like every kver_ROW, it prints nothing when it finds none
# and never fails: boots() runs under pipefail and errexit, where a failed
# lookup would end the list and silently drop the rows after it.
kver_61() {
	apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(6\.1\.[^ ]*\)$/\1/p' | head -n 1 ||
		true
}

# debug_suites: the same suites, KUnit and fault injection under the debug
# kernel (lockdep, PROVE_RCU, KASAN, kmemleak...), built once into the cache.
debug_suites() {
	local dk
	step "debug kernel (built once into the cache: 15-25 minutes the first time)"
	if ! dk=$("$REPO/tools/vm/debug-kernel.sh"); then
		record "build: debug kernel" 0 1 0 "see tools/vm/debug-kernel.sh output above"
		return
	fi
	GUEST_SUITES=("${DEBUG_SUITES[@]}")
	TRACE_EVENTS=1
	vm_suites debug "$dk" "$dk/arch/x86/boot/bzImage"
	TRACE_EVENTS=
	GUEST_SUITES=("${STOCK_SUITES[@]}")
}

# smp4_suites KVER: SMP4_SUITES on the stock kernel KVER with 4 vCPUs.
smp4_suites() {
	local kver=$1 gaps i
	GUEST_SUITES=("${SMP4_SUITES[@]}")
	VM_SMP=$SMP4 VM_KVER=$kver
	vm_suites smp4
	VM_SMP='' VM_KVER=''
	GUEST_SUITES=("${STOCK_SUITES[@]}")
	# "# heartbeat: kthread: largest gap 3.1 ms ..." -> "kthread 3.1 ms"
	gaps=$(sed -n 's/.*# heartbeat: \([a-z-]*\): largest gap \([0-9.]* [mu]s\).*/\1 \2/p' \
		"$LOGDIR/vm-smp4.out" | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')
	for i in "${!NAMES[@]}"; do
		[[ ${NAMES[i]} == "[smp4] kselftest: kvbench switch matrix"* ]] || continue
		NOTES[i]="heartbeat, largest gap: ${gaps:-not reported}${NOTES[i]:+; ${NOTES[i]}}"
	done
}

# kcsan_suites: the concurrent suites under the KCSAN kernel (KCSAN and
# lockdep, no KASAN), built once into the cache.
kcsan_suites() {
	local dk
	step "KCSAN kernel (built once into the cache: about 5 minutes the first time)"
	if ! dk=$("$REPO/tools/vm/debug-kernel.sh" kcsan); then
		record "build: KCSAN kernel" 0 1 0 "see tools/vm/debug-kernel.sh output above"
		return
	fi
	GUEST_SUITES=("${KCSAN_SUITES[@]}")
	VM_ARGS=(--allow-report "$KCSAN_ALLOW")
	vm_suites kcsan "$dk" "$dk/arch/x86/boot/bzImage"
	VM_ARGS=()
	GUEST_SUITES=("${STOCK_SUITES[@]}")
	kcsan_verdict "$LOGDIR/vm-kcsan.console"
}

# kcsan_verdict CONSOLE: one row for the KCSAN reports in the kernel log the
# guest dumped: those that name our code fail it, the others are noted.
kcsan_verdict() {
	local ours theirs note
	if ! grep -q '<kvbench-vm:dmesg>$' "$1"; then
		record "[kcsan] KCSAN reports" 0 1 0 "no kernel log (the boot did not finish)"
		return
	fi
	read -r ours theirs < <(awk -v allow="$KCSAN_ALLOW" '
		/<\/kvbench-vm:dmesg>$/ { on = 0 }
		on && /BUG: KCSAN:/ { if ($0 ~ allow) theirs++; else ours++ }
		/<kvbench-vm:dmesg>$/ { on = 1 }
		END { print ours + 0, theirs + 0 }
	' "$1")
	note="$theirs in the kernel's own code (see $1)"
	[[ $theirs -gt 0 ]] || note=
	if [[ $ours -eq 0 ]]; then
		record "[kcsan] KCSAN reports naming kvbench: none" 1 0 0 "$note"
	else
		record "[kcsan] KCSAN reports naming kvbench: $ours" 0 "$ours" 0 "$note"
	fi
}

# Native only when asked: root with headers is no reason to load our module
# into a workstation's kernel.
use_native() { [[ ${NATIVE:-} == 1 ]]; }

# The Debian 6.12 PREEMPT_RT kernel, from its metapackage.
kver_rt() {
	apt-cache depends linux-image-6.12-rt-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(6\.12\.[^ ]*-rt-amd64\)$/\1/p' | head -n 1 ||
		true
}

# The newest Debian 7.2 of unstable, unless KVER72 names one.
kver_72() {
	if [[ -n ${KVER72:-} ]]; then
		echo "$KVER72"
		return
	fi
	"$VM" kver-sid 7.2 2>/dev/null || true
}

# The newest Debian 6.12 arm64 kernel (kvbench-vm resolves it from the
# arm64 package lists in its cache).
kver_arm64() { KVBENCH_ARCH=arm64 "$VM" kver 2>/dev/null || true; }

# wanted ROW: CHECK_ONLY is unset or names ROW.
wanted() { [[ -z ${CHECK_ONLY:-} || " $CHECK_ONLY " == *" $1 "* ]]; }

# boots: the stock boots that CHECK_ONLY leaves, a line each: "KVER SET
# ROW", SET being full (with the kselftest framework's runner on the
# first) or core, ROW the name CHECK_ONLY knows (KVER "-": none found).
# KVERS and the long tier make every one full.
boots() {
	local kver set=core row
	if [[ -n ${KVERS:-} ]]; then
		for kver in $KVERS; do
			wanted "$kver" && echo "$kver full $kver"
		done
		return 0
	fi
	[[ $TIER == gate ]] || set=full
	wanted 6.12 && echo "$("$VM" kver) full 6.12"
	for row in 6.1:61 6.12-rt:rt 7.2:72 arm64:arm64; do
		wanted "${row%:*}" || continue
		kver=$("kver_${row#*:}")
		echo "${kver:--} $set ${row%:*}"
	done
}

# plan: where the guest suites would run, a line each (the dry run, and the
# summary's head).
plan() {
	local kver set
	if use_native; then
		printf 'native %s: suites %s\n' "${KVBENCH_RUNNING_KVER:-$(uname -r)}" \
			"$(native_kvbench_suites)"
		return
	fi
	while read -r kver set row; do
		if [[ $kver == - ]]; then
			printf 'vm %s: %s set, but no such kernel was found: the row fails\n' "$row" "$set"
		else
			printf 'vm %s: %s set\n' "$kver" "$set"
		fi
	done < <(boots)
	if wanted smp4; then
		printf 'vm smp4 (%s, %d vCPUs): stress, switch matrix, owner threads, heartbeat\n' \
			"$("$VM" kver)" "$SMP4"
	fi
	if wanted debug; then
		if [[ $TIER == gate ]]; then
			printf 'vm debug: kvbench.sh suites (tier gate), KUnit, fault injection\n'
		else
			printf 'vm debug: full set (tier %s), KUnit, fault injection\n' "$TIER"
		fi
	fi
	if wanted kcsan; then
		printf 'vm kcsan: KUnit, stress, switch matrix, io_uring\n'
	fi
	if [[ -n ${CHECK_ONLY:-} ]]; then
		printf 'only: %s (CHECK_ONLY)\n' "$CHECK_ONLY"
	fi
}

# prebuild_kernels: build the debug and KCSAN kernels that are not cached
# in the background, at idle priority, while the stock boots run; their
# own flock makes debug_suites() and lint wait for a build under way.
prebuild_kernels() {
	local flavor
	for flavor in debug kcsan; do
		"$REPO/tools/vm/debug-kernel.sh" --cached "$flavor" >/dev/null 2>&1 && continue
		step "building the $flavor kernel in the background (idle priority; log: $LOGDIR/prebuild-$flavor.log)"
		chrt --idle 0 "$REPO/tools/vm/debug-kernel.sh" "$flavor" \
			>"$LOGDIR/prebuild-$flavor.log" 2>&1 &
		# One at a time: each build uses every CPU.
		wait $!  || true
	done &
}

summary() {
	local i total_pass=0 total_fail=0 total_skip=0 line
	echo
	echo "Summary (took ${SECONDS}s; logs in $LOGDIR)"
	plan | sed 's/^/  /'
	for i in "${!NAMES[@]}"; do
		line=$(printf '  %-44s %4d passed, %d failed' "${NAMES[i]}" "${PASS[i]}" "${FAIL[i]}")
		[[ ${SKIP[i]} -gt 0 ]] && line+=", ${SKIP[i]} skipped"
		[[ -n ${TIMES[i]} ]] && line+=" [${TIMES[i]} s]"
		[[ -n ${NOTES[i]} ]] && line+="  (${NOTES[i]})"
		printf '%s\n' "$line"
		total_pass=$((total_pass + PASS[i]))
		total_fail=$((total_fail + FAIL[i]))
		total_skip=$((total_skip + SKIP[i]))
	done
	line="$total_pass passed, $total_fail failed"
	[[ $total_skip -gt 0 ]] && line+=", $total_skip skipped"
	printf '%s\n' "$line"
	[[ $total_fail -eq 0 ]]
}

main() {
	local built=1 kver set
	if [[ ${KVBENCH_CHECK_DRY_RUN:-} == 1 ]]; then
		rmdir "$LOGDIR"
		plan
		return
	fi
	step "setup (packages, guest kernel, initramfs; cached after the first run)"
	"$VM" setup
	KSRC=$("$VM" ksrc)
	if ! use_native && { wanted debug || wanted kcsan || wanted lint; }; then
		prebuild_kernels
	fi

	# kvbench-test too: the smoke suite runs it in the guest (and the host
	# suites, which CHECK_ONLY may leave out, would build it otherwise).
	build "tool" make -C "$REPO/tools/kvbench" kvbench kvbench-test || built=0
	build "selftests" make -C "$REPO/selftests/kvbench" KSRC="$KSRC" || built=0
	build "kselftest tree (TARGETS=kvbench: build, run_tests, install)" \
		kselftest_tree || true
	! wanted lint || bg_start "host: lint (checkpatch, sparse, W=1 on four trees, rst, docs vs code, shellcheck)" \
		"$LOGDIR/host-lint.log" "$REPO/tools/lint/lint.sh"
	! wanted host || bg_start "host: dkms (add, build, install, remove)" \
		"$LOGDIR/host-dkms.log" "$REPO/tools/lint/dkms-check.sh"
	! wanted host || host_suites

	if [[ $built -eq 0 ]]; then
		record_not_run "" "tool or selftests did not build"
	elif use_native; then
		GUEST_SUITES=("${STOCK_SUITES[@]}" "${KSFT_SUITES[@]}")
		native_suites
	else
		GUEST_SUITES=("${STOCK_SUITES[@]}" "${KSFT_SUITES[@]}")
		while read -r kver set row; do
			if [[ $kver == - ]]; then
				record "boot: $row" 0 1 0 "no such kernel found (apt-cache; for 7.2, kvbench-vm kver-sid 7.2; for arm64, KVBENCH_ARCH=arm64 kvbench-vm kver)"
				continue
			fi
			[[ $set == full ]] || GUEST_SUITES=("${CORE_SUITES[@]}")
			vm_suites "$kver"
			GUEST_SUITES=("${STOCK_SUITES[@]}")
		done < <(boots)
		! wanted smp4 || smp4_suites "$("$VM" kver)"
		! wanted debug || debug_suites
		! wanted kcsan || kcsan_suites
	fi
	bg_finish
	summary
}

main "$@"
