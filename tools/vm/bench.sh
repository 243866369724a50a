#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - `make bench`: build the module and the kvbench tool, boot the
# guest kernel (or use this kernel with NATIVE=1), load the module, run
# `kvbench bench` and print its table.
#
# Every run is kept under results/<UTC time>-<kernel>/ (git-ignored):
# bench.txt (what was printed), meta.txt, host-steal.txt (how long the
# vCPUs waited for a host CPU in each case: tools/vm/host-steal), and
# whatever the tool wrote under
# $KVBENCH_OUT in the guest (bench.json from --json, and anything else),
# copied back by kvbench-vm.
#
# With no BENCH_ARGS it runs the default suite (STUDIES below): every
# backend and baseline on YCSB's workloads C (read only), B (95:5) and A
# (50:50) and the seed's case (GETs of uniform keys), at 1, 2, 4, ...
# threads up to the vCPUs and at their number, eight runs per case (five,
# kvbench bench's default, are the fewest for the verdict's test; eight
# detect a difference of 5% about twice as often), in eight rounds that
# each run every case once in a shuffled order (kvbench bench --order
# shuffled: each run starts settled, after what the run before it
# deferred is done), each round in a boot of its own (BENCH_BOOTS): a
# backend's speed moves between two boots as much as between two runs of
# one, and a verdict whose runs all come from one boot judges that boot
# (kvbench merge pools them; Documentation/results.rst, "Does the verdict
# hold on the next run?"); with the rounds, side
# studies at that many threads: hot keys, what a shared fd costs, a packed
# MGET of 64 keys against a BATCH of 64 GETs, GET through io_uring at queue
# depth 1, 16 and 64 against ioctls and BATCH(64) (and, last, with SQPOLL),
# what zipf keys do to each backend, GET at 1,000 against 1,000,000 keys
# (hash tables sized for them), what an overfull table at the default
# hash_bits costs, and the CPU idle owner threads use. A plot of the main
# suite goes to bench.png, and the run ends with its verdict (kvbench
# report): per workload, the fastest backend and each other one against it.
#
# With several boots, each writes its reports under boot-N/ (with its
# console log, host steal and trace); the main suite's bench.json of every
# boot is pooled into results/<run>/bench.json (kvbench merge: each case's
# runs from every boot, rounds numbered on, "boots" naming each run's),
# and each side study, which runs in one boot, is moved up beside it.
#
# The suite is planned before anything boots: each study's time comes from
# `kvbench bench --dry-run`, and when the whole does not fit BENCH_BUDGET,
# what matters least goes first: the side studies' repeats (rounds), then
# the side studies from the last one up, then the main suite's rounds; when
# even one round does not fit, that round skips the cases that do not
# (kvbench bench --budget, which also begins a round only while a whole one
# fits: every case keeps as many runs as the others). The
# plan, and what it dropped, is printed and kept as plan.txt. Every report
# is rewritten after each case and the VM runner copies them back even when
# the VM is killed, so a run cut short keeps what it finished.
#
# Environment:
#   BENCH_ARGS     arguments for one `kvbench bench` instead of the default
#                  suite (word-split; it still gets --budget first)
#   BENCH_PARAMS   with BENCH_ARGS: module parameters for that run, as
#                  NAME=VALUE words (e.g. "owners=2 owner_cpus=1"); for
#                  hash_bits, BENCH_ARGS needs --keep-hash-bits, or
#                  kvbench sets it for its --keys
#   BENCH_BUDGET   seconds the benchmark may take in the guest, each boot
#                  after the first counted as BOOT_SECONDS (default 960:
#                  `make bench` stays under 20 minutes at any CPU count)
#   BENCH_MAX_STEAL  PCT: the pooled report leaves out each run during
#                  which the host took PCT% or more of the vCPUs' time
#                  (kvbench merge --max-steal, from each boot's
#                  host-steal.txt; listed in the case's "dropped_runs");
#                  default: none left out
#   BENCH_BOOTS    boots the main suite's rounds are spread over (default 8,
#                  a round each; at most the rounds; 1: every round in one
#                  boot, as before); side studies go to the boot with the
#                  least to do. With BENCH_ARGS, 1
#   BENCH_REPEAT   runs per case, as rounds (default 8; with fewer than 5, no
#                  difference between two backends can be significant, and
#                  the verdict and `kvbench compare` say "cannot tell")
#   BENCH_DRY_RUN  1: print the plan and stop (no setup, no VM)
#   BENCH_SMP      vCPUs (default: nproc; with BENCH_DRY_RUN, the CPU count
#                  to plan for); SMP is the same (`make bench SMP=8`)
#   BENCH_TIMEOUT  seconds the VM may run (default: the plan plus 180)
#   KVER           the guest kernel (default: the newest Debian 6.12): a
#                  Debian 12 kernel (6.1.0-57-amd64, 6.12.*+deb12-rt-amd64;
#                  6.12.*+deb12-arm64 boots on the arm64 guest, as
#                  KVBENCH_ARCH=arm64 does), or one of Debian unstable's
#                  (7.2.13+deb14-amd64; the series, KVER=7.2, names its
#                  newest), for which the module is built in a cached
#                  chroot of unstable (kvbench-vm kmake)
#   BENCH_SNAP_EVERY  seconds between the guest's snapshots of the results
#                  (kvbench-vm run --snap-every; default 300: a snapshot
#                  is work beside the measured threads)
#   BENCH_TRACE_STALL  US or US:N: catch a slow request (with :N, the Nth
#                  over US in one run: a stall that lasts) in the kernel's
#                  trace. Before
#                  the plan, the guest's ftrace records the scheduler's
#                  switches, wake-ups (sched_waking in the waker's context,
#                  with the waker's stack when it wakes a kvbench thread),
#                  migrations, timers and hrtimers (timer:*), IRQs,
#                  softirqs and IPIs (irq:*, irq_vectors:*), workqueue and
#                  RCU events (what the kernel has of rcu:*) and the
#                  module's (kvbench:*) into a ring buffer of
#                  BENCH_TRACE_BUFFER_KB per CPU (default 16384); every
#                  kvbench bench of the plan runs with --trace-stall US,
#                  which freezes the buffer at the first operation over US
#                  microseconds (one per boot: a later run leaves it
#                  frozen). After the plan the frozen trace comes back as
#                  trace.txt.gz beside bench.json (the marker line
#                  "kvbench stall: OP took N us ..." near its end), the
#                  per-CPU buffers' stats (overruns) as trace-stats.txt,
#                  and trace-summary.txt (and the output's end) says in a
#                  line what was caught; Documentation/kvbench.rst
#                  ("Catching a stall") tells how to read it
#   BENCH_TRACE_BUFFER_KB  see BENCH_TRACE_STALL
#   BENCH_SCHED_FEATURES  scheduler features to set in the guest before
#                  the plan, space separated, as
#                  /sys/kernel/debug/sched/features takes them (FEATURE or
#                  NO_FEATURE; needs SCHED_DEBUG): e.g. TTWU_QUEUE on the
#                  RT kernel, which turns it off (issue 48: remote
#                  wake-ups; Documentation/design.rst, "What PREEMPT_RT
#                  changes"). An experiment's knob, not a setting for
#                  figures; meta.txt records it
#   BENCH_TRACE_KEEP_S  the seconds of the frozen trace up to the stall
#                  that come back (default 2: the whole ring would be
#                  megabytes through the guest's serial port)
#   KVBENCH_ARCH   arm64: the newest Debian 6.12 arm64 kernel on QEMU's virt
#                  machine (tools/vm/kvbench-vm), the module (kvbench-vm
#                  kmake) and the tool cross-built for it
#   NATIVE         as for check.sh

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly VM=$REPO/tools/vm/kvbench-vm
readonly KVB=$REPO/tools/kvbench/kvbench
readonly BUDGET=${BENCH_BUDGET:-960}
BENCH_SMP=${BENCH_SMP:-${SMP:-}}

# The default suite, most important first:
#   name|what it measures|module parameters for it|kvbench bench arguments
# @T is the thread list (1, 2, 4, ... below the CPUs, then their number),
# @N the number of CPUs, @OUT the directory the reports go to. The "idle"
# study is the driver's own (no kvbench run); IDLE_SECONDS is its cost.
readonly -a STUDIES=(
	"main|main suite: every backend, bpf-htab and baseline, YCSB C, B, A and the seed's GETs||-b all -W ycsb-c,ycsb-b,ycsb-a,seed -t @T --json @OUT/bench.json --csv @OUT/bench.csv"
	"hot-1|side study: hot-key writes, every thread SETs one key (module backends)||-b kernel -m set -t @T -k 1 --json @OUT/hot-1.json"
	"hot-16|side study: hot-key writes, every thread SETs among 16 keys (module backends)||-b kernel -m set -t @T -k 16 --json @OUT/hot-16.json"
	"fd|side study: a shared fd against per-thread fds (rcu GET)||-b nop,rcu -m get -t @N --fd both --json @OUT/fd.json"
	"multi|side study: MGET(64) against BATCH(64) of GETs (kernel backends)||-b kernel -m get -t @N --batch 64 --multi 64 --json @OUT/multi.json"
	"uring|side study: io_uring at qd 1, 16, 64 against ioctls, BATCH(64) and the NOP floor (GET)||-b nop,rwlock,rcu,kthread,kthread-percpu,combining -m get -t @N --io both --qd 1,16,64 --batch 1,64 --json @OUT/uring.json"
	"zipf|side study: zipf(0.99) keys against uniform (90:10)||-b kernel -m 90:10 -t @N --dist zipf --json @OUT/zipf.json"
	"idle|side study: CPU used by idle owner threads (10 s, no requests)||"
	"keys-1000|side study: GET with 1000 keys (hash_bits sized by kvbench: 10)||-b kernel -m get -t @N -k 1000 --json @OUT/keys-1000.json"
	"keys-1000000|side study: GET with 1000000 keys (hash_bits sized by kvbench: 20)||-b kernel -m get -t @N -k 1000000 --json @OUT/keys-1000000.json"
	"keys-1000000-default|side study: what an overfull table at the default hash_bits costs (GET, 1000000 keys, --keep-hash-bits)||-b rwlock,rcu,rhashtable -m get -t @N -k 1000000 --keep-hash-bits --json @OUT/keys-1000000-default.json"
	"uring-sqpoll|side study: io_uring with SQPOLL, an SQ thread per ring (GET)||-b nop,rcu,kthread -m get -t @N --io uring --qd 1,16,64 --sqpoll --json @OUT/uring-sqpoll.json"
)
readonly IDLE_SECONDS=25
readonly REPEAT=${BENCH_REPEAT:-8}
# Boots of the default suite, and what a boot beyond the first costs of
# the budget: the kernel's boot, insmod and the copy of the results back
# under TCG (measured: about 20 s).
BOOTS=${BENCH_BOOTS:-8}
readonly BOOT_SECONDS=25
readonly MAX_STEAL=${BENCH_MAX_STEAL:-}
# What a study costs around its kvbench run: the driver's sysfs writes, the
# process start, the reports (seconds).
readonly STUDY_OVERHEAD=3
# What the VM needs besides the plan: boot, insmod, rmmod, copying back.
readonly VM_OVERHEAD=180
# BENCH_TRACE_STALL: the threshold (microseconds), the ring buffer per CPU
# (KB), and the time the guest needs to save a frozen trace and the VM to
# copy it back (seconds).
readonly TRACE_STALL=${BENCH_TRACE_STALL:-}
readonly TRACE_KB=${BENCH_TRACE_BUFFER_KB:-16384}
readonly TRACE_KEEP=${BENCH_TRACE_KEEP_S:-2}
readonly TRACE_OVERHEAD=240
readonly SCHED_FEATURES=${BENCH_SCHED_FEATURES:-}

# How often the guest looks for a snapshot of the results (kvbench-vm run
# --snap-every): each is a tar, a gzip and a serial port's transfer beside
# the measured threads, which cost kthread at one thread 9% of its ops/s
# and doubled its p99 (Documentation/results.rst); a VM that does not
# finish loses at most this many seconds of results.
readonly SNAP_EVERY=${BENCH_SNAP_EVERY:-300}


step() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

[[ $BUDGET =~ ^[0-9]+$ && $BUDGET -gt 0 ]] ||
	die "BENCH_BUDGET=$BUDGET: not a number of seconds"
[[ $REPEAT =~ ^[1-9][0-9]?$ ]] ||
	die "BENCH_REPEAT=$REPEAT: not a number of runs per case (1-99)"
[[ $BOOTS =~ ^[1-9][0-9]?$ ]] ||
	die "BENCH_BOOTS=$BOOTS: not a number of boots (1-99)"
[[ -z ${BENCH_ARGS:-} ]] || BOOTS=1
[[ -z $MAX_STEAL || $MAX_STEAL =~ ^[1-9][0-9]?$|^100$ ]] ||
	die "BENCH_MAX_STEAL=$MAX_STEAL: not a share of the vCPUs' time in percent (1-100)"
[[ -z ${BENCH_SMP:-} || $BENCH_SMP =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_SMP=$BENCH_SMP: not a number of CPUs"
[[ -z ${BENCH_TIMEOUT:-} || $BENCH_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_TIMEOUT=$BENCH_TIMEOUT: not a number of seconds"
[[ $SNAP_EVERY =~ ^[1-9][0-9]{0,4}$ ]] ||
	die "BENCH_SNAP_EVERY=$SNAP_EVERY: not a number of seconds"
[[ $SCHED_FEATURES =~ ^(\ *(NO_)?[A-Z][A-Z0-9_]*)*\ *$ ]] ||
	die "BENCH_SCHED_FEATURES=$SCHED_FEATURES: not scheduler feature names"
[[ -z $TRACE_STALL || $TRACE_STALL =~ ^[0-9]{1,8}(:[1-9][0-9]{0,5})?$ ]] ||
	die "BENCH_TRACE_STALL=$TRACE_STALL: not US or US:N (microseconds, a count)"
[[ $TRACE_KEEP =~ ^[1-9][0-9]{0,3}$ ]] ||
	die "BENCH_TRACE_KEEP_S=$TRACE_KEEP: not a number of seconds"
[[ $TRACE_KB =~ ^[1-9][0-9]{0,6}$ ]] ||
	die "BENCH_TRACE_BUFFER_KB=$TRACE_KB: not a number of KB"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-bench.XXXXXX")
readonly WORK
trap 'rm -rf "$WORK"' EXIT

# quiet NAME CMD...: run a build step, showing its output only on failure.
quiet() {
	local name=$1
	shift
	step "build: $name"
	if ! "$@" >"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log" >&2
		echo "bench: building $name failed" >&2
		exit 1
	fi
}

# Quote $1 for a POSIX shell (the guest's sh -c).
shell_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# tee that outlives a Ctrl-C: the VM runner then copies back what the run
# wrote, and the plot is drawn from it.
keep() {
	trap '' INT
	tee "$@"
}

# stamp FILE: pass lines through, and append each to FILE as "US LINE",
# with the time it arrived (for host-steal report); outlives a Ctrl-C as
# keep does.
stamp() {
	local line
	trap '' INT
	while IFS= read -r line; do
		printf '%s\n' "$line"
		printf '%s %s\n' "${EPOCHREALTIME/./}" "$line" >>"$1"
	done
}

# steal_report CPUS SAMPLES STAMPS RESULTS META BOOT: how long the vCPUs
# waited for a host CPU, in each case of boot BOOT (RESULTS/host-steal.txt)
# and over it (a line in META); a warning when some cases lost a tenth of
# their time or more.
# Under TCG the guest cannot see it, and the owner backends, whose every
# request is a hand-off between vCPUs, lose most to it.
steal_report() {
	local cpus=$1 samples=$2 stamps=$3 results=$4 meta=$5 boot=$6 run high worst
	[[ -s $samples && -s $stamps ]] || return 0
	"$REPO/tools/vm/host-steal" report "$cpus" "$samples" "$stamps" \
		>"$results/host-steal.txt" || return 0
	run=$(sed -n 's/^run \([0-9.]*\)% .*/\1/p' "$results/host-steal.txt")
	[[ -n $run ]] || return 0
	echo "host steal during boot $boot: $run% of the vCPUs' time (per case: ${results#"$REPO"/}/host-steal.txt)" >>"$meta"
	high=$(awk '$1 != "run" && $1 + 0 >= 10 { n++ } END { print n + 0 }' "$results/host-steal.txt")
	echo
	echo "host steal: the vCPUs waited for a host CPU $run% of the run (per case: ${results#"$REPO"/}/host-steal.txt)"
	[[ $high -gt 0 ]] || return 0
	worst=$(grep -v '^run ' "$results/host-steal.txt" | sort -rn | head -n 1)
	printf 'bench: the host took 10%% or more of the vCPUs'"'"' time in %s cases (the most: %s): their numbers, the owner backends'"'"' first, are not those of a quiet machine\n' \
		"$high" "$worst" >&2
}

# trace_wakeups TRACE.gz: one line on the cross-CPU wake-ups a trace holds
# that the waker made itself (PREEMPT_RT turns the scheduler's TTWU_QUEUE
# off: the waker locks the target CPU's runqueue, enqueues, sends the
# reschedule IPI and only then records sched_wakeup), and of those, the ones
# whose target took that IPI first: it then waits in __schedule() for the
# runqueue lock the waker holds. Under TCG such a pair stalled until the
# next tick (issue 48: Documentation/design.rst, "What PREEMPT_RT
# changes"), so the line also counts the ones over 1 ms.
trace_wakeups() {
	gzip -dc "$1" | awk '
		{
			ts = ""
			for (i = 1; i < NF; i++)
				if ($i ~ /^\[[0-9]+\]$/)
					cpu = $i
				else if ($i ~ /^[0-9]+\.[0-9]+:$/) {
					ts = $i + 0
					ev = $(i + 1)
					break
				}
			if (ts == "")
				next
			pid = ""
			if (match($0, / pid=[0-9]+/))
				pid = substr($0, RSTART + 5, RLENGTH - 5)
		}
		ev == "sched_waking:" && match($0, /target_cpu=[0-9]+/) {
			tgt = "[" substr($0, RSTART + 11, RLENGTH - 11) "]"
			if (tgt == cpu)
				next
			at[pid] = ts
			from[pid] = cpu
			to[pid] = tgt
			ipi[pid] = 0
		}
		ev == "reschedule_entry:" {
			for (p in at)
				if (to[p] == cpu)
					ipi[p] = 1
		}
		ev == "sched_wakeup:" && (pid in at) {
			if (from[pid] == cpu) {
				n++
				slow = ts - at[pid] > 0.001
				if (ipi[pid]) {
					first++
					first_slow += slow
				} else {
					other_slow += slow
				}
			}
			delete at[pid]
		}
		END {
			printf "wake-ups: %d cross-CPU ones the waker activated itself; ", n
			printf "the target took the IPI first in %d, %d of them over 1 ms; ", first, first_slow
			printf "over 1 ms otherwise: %d\n", other_slow
		}'
}

# trace_report RESULTS META: BENCH_TRACE_STALL's lines, into
# RESULTS/trace-summary.txt and META: the marker the trace was frozen at,
# or that none was.
trace_report() {
	local results=$1 meta=$2 marker line overrun
	overrun=$(awk '/^cpu/ { c = $1 } /^overrun:/ { printf "%s%s %s", s, c, $2; s = ", " }' \
		"$results/trace-stats.txt" 2>/dev/null) || true
	if [[ -f $results/trace.txt.gz ]]; then
		marker=$(gzip -dc "$results/trace.txt.gz" | grep -m 1 'kvbench stall: ' || true)
		line="trace frozen at: ${marker:-(no kvbench stall marker in it: another writer froze it?)}"
		line+=$'\n'"trace: ${results#"$REPO"/}/trace.txt.gz, $(gzip -dc "$results/trace.txt.gz" | wc -l) lines"
		line+="; events lost to the ring's overwrite per CPU (trace-stats.txt): ${overrun:-unknown}"
		line+=$'\n'"$(trace_wakeups "$results/trace.txt.gz")"
	elif [[ -f $results/trace-stats.txt ]]; then
		line="trace: no stall over $TRACE_STALL us (the trace was not frozen, not saved)"
	else
		line="trace: none came back (the run ended before it saved the trace)"
	fi
	printf '%s\n' "$line" >"$results/trace-summary.txt"
	echo "trace-stall $TRACE_STALL us: ${line%%$'\n'*}" >>"$meta"
	echo
	printf '%s\n' "$line"
}

# How busy the host's CPUs are, in percent, over the next 2 s (from
# /proc/stat: time not idle or waiting for I/O).
host_busy() {
	local a b
	a=$(head -n 1 /proc/stat)
	sleep 2
	b=$(head -n 1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 2; i <= n; i++) { d = y[i] - x[i]; all += d; if (i == 5 || i == 6) idle += d }
		printf "%d\n", all ? 100 * (all - idle) / all : 0
	}'
}

# The benchmark needs the host to itself: say so when something else keeps
# its CPUs busy (a quarter or more, just before the run; $1). The owner
# backends' numbers, which live on hand-offs between CPUs, suffer first.
busy_warning() {
	[[ $1 -ge 25 ]] || return 0
	printf 'bench: the host is busy (%s%% of its CPUs just before the run): the numbers of this run, the owner backends first, are not those of a quiet machine\n' "$1" >&2
}

# Native only when asked (NATIVE=1), as for check.sh.
use_native() { [[ ${NATIVE:-} == 1 ]]; }

# ---- the plan ----

# The planned studies, filled by plan(): PLAN_NAME[i], PLAN_WHAT[i],
# PLAN_PARAMS[i], PLAN_ARGS[i] (the kvbench arguments without -r, @T and
# @N expanded), PLAN_REPEAT[i], PLAN_SECONDS[i]; DROPPED: what the budget
# cut, in the order it was cut.
declare -a PLAN_NAME=() PLAN_WHAT=() PLAN_PARAMS=() PLAN_ARGS=() PLAN_REPEAT=() PLAN_SECONDS=()
declare -a DROPPED=()
PLAN_CPUS=0
PLAN_THREADS=

# 1, 2, 4, ... below $1, then $1 (what kvbench calls "pow2").
pow2_list() {
	local n=$1 t=1 list=
	while [[ $t -lt $n ]]; do
		list+=$t,
		t=$((t * 2))
	done
	printf '%s\n' "$list$n"
}

# seconds_of ARGS REPEAT: the tool's estimate for one study, with its
# overhead; ARGS empty is the idle study.
seconds_of() {
	local args=$1 repeat=$2 est
	local -a a
	if [[ -z $args ]]; then
		echo $((IDLE_SECONDS + STUDY_OVERHEAD))
		return
	fi
	read -r -a a <<<"$args"
	[[ -z $repeat ]] || a+=(-r "$repeat")
	est=$("$KVB" bench --dry-run --cpus "$PLAN_CPUS" "${a[@]}" |
		sed -n 's/^kvbench: .*, about \([0-9]*\) s$/\1/p') ||
		die "kvbench bench --dry-run $args failed"
	[[ -n $est ]] || die "kvbench bench --dry-run $args: no estimate"
	echo $((est + STUDY_OVERHEAD))
}

plan_total() {
	local i total=0
	for i in "${!PLAN_NAME[@]}"; do
		total=$((total + PLAN_SECONDS[i]))
	done
	echo "$total"
}

# plan CPUS: the default suite (or BENCH_ARGS) for CPUS, cut to BUDGET by
# taking the first of these that fits:
#   1. every study at REPEAT rounds (runs per case; kvbench's estimate
#      counts a round as every case once, each run beginning its target);
#   2. the side studies at one round;
#   3. the main suite at two (the fewest that still give a spread), with
#      the side studies that fit, the most important (first) first;
#   4. the main suite at one round, with the side studies that fit;
# and when even that does not fit, the main suite's one round skips the
# cases that do not fit, those its shuffled order puts last (kvbench bench
# --budget).
plan() {
	local cpus=$1 entry name what params args i main_r side_r used
	local -a names=() whats=() params_=() argss=() cost=() cost1=()
	PLAN_CPUS=$cpus
	# a boot beyond the first costs BOOT_SECONDS of the budget
	while [[ $BOOTS -gt 1 && $((BUDGET - (BOOTS - 1) * BOOT_SECONDS)) -lt $((BUDGET / 2)) ]]; do
		BOOTS=$((BOOTS - 1))
	done
	PLAN_BUDGET=$((BUDGET - (BOOTS - 1) * BOOT_SECONDS))
	PLAN_THREADS=$(pow2_list "$cpus")
	if [[ -n ${BENCH_ARGS:-} ]]; then
		PLAN_NAME=(custom) PLAN_WHAT=("kvbench bench $BENCH_ARGS")
		PLAN_PARAMS=("${BENCH_PARAMS:-}")
		PLAN_ARGS=("--json @OUT/bench.json $BENCH_ARGS") PLAN_REPEAT=('')
		PLAN_SECONDS=("$(seconds_of "$BENCH_ARGS" '')")
		if [[ ${PLAN_SECONDS[0]} -gt $PLAN_BUDGET ]]; then
			DROPPED+=("the cases that do not fit: it needs about ${PLAN_SECONDS[0]} s and stops at the budget")
			PLAN_SECONDS[0]=$PLAN_BUDGET
		fi
		return 0
	fi
	for entry in "${STUDIES[@]}"; do
		IFS='|' read -r name what params args <<<"$entry"
		args=${args//@T/$PLAN_THREADS}
		args=${args//@N/$cpus}
		names+=("$name") whats+=("$what") params_+=("$params") argss+=("$args")
		cost+=("$(seconds_of "$args" "$REPEAT")")
		cost1+=("$(seconds_of "$args" 1)")
	done
	used=0
	for i in "${!cost[@]}"; do
		used=$((used + cost[i]))
	done
	main_r=$REPEAT side_r=$REPEAT
	if [[ $used -gt $PLAN_BUDGET ]]; then
		side_r=1
		DROPPED+=("the side studies' repeats: $REPEAT rounds (runs per case) -> 1")
		used=${cost[0]}
		for ((i = 1; i < ${#cost[@]}; i++)); do
			used=$((used + cost1[i]))
		done
	fi
	if [[ $used -gt $PLAN_BUDGET ]]; then
		main_r=$((REPEAT < 2 ? REPEAT : 2))
		[[ $(seconds_of "${argss[0]}" "$main_r") -le $PLAN_BUDGET ]] || main_r=1
		DROPPED+=("the main suite's repeats: $REPEAT rounds (runs per case) -> $main_r")
	fi
	PLAN_NAME=("${names[0]}") PLAN_WHAT=("${whats[0]}") PLAN_PARAMS=("${params_[0]}")
	PLAN_ARGS=("${argss[0]}") PLAN_REPEAT=("$main_r")
	PLAN_SECONDS=("$(seconds_of "${argss[0]}" "$main_r")")
	used=${PLAN_SECONDS[0]}
	for ((i = 1; i < ${#names[@]}; i++)); do
		local c=${cost[i]}
		[[ $side_r == "$REPEAT" ]] || c=${cost1[i]}
		if [[ $((used + c)) -gt $PLAN_BUDGET ]]; then
			DROPPED+=("${names[i]} (${whats[i]#side study: }, about $c s)")
			continue
		fi
		used=$((used + c))
		PLAN_NAME+=("${names[i]}") PLAN_WHAT+=("${whats[i]}")
		PLAN_PARAMS+=("${params_[i]}") PLAN_ARGS+=("${argss[i]}")
		PLAN_REPEAT+=("$side_r") PLAN_SECONDS+=("$c")
	done
	if [[ ${PLAN_SECONDS[0]} -gt $PLAN_BUDGET ]]; then
		DROPPED+=("the main suite's cases that one round cannot fit: it needs about ${PLAN_SECONDS[0]} s; its round skips those its order puts last")
		PLAN_SECONDS[0]=$PLAN_BUDGET
	fi
}

# assign_boots: the plan over BOOTS boots (at most the main suite's
# rounds): BOOT_MAIN_R[b], the main suite's rounds in boot b (spread
# evenly), BOOT_STUDIES[b], the side studies' plan indices it runs (each to
# the boot with the least to do so far), BOOT_SECS[b], its estimate.
declare -a BOOT_MAIN_R=() BOOT_MAIN_SECS=() BOOT_STUDIES=() BOOT_SECS=()
assign_boots() {
	local i b best r main_r=${PLAN_REPEAT[0]}

	[[ -n $main_r ]] || BOOTS=1
	[[ -z $main_r || $BOOTS -le $main_r ]] || BOOTS=$main_r
	for ((b = 0; b < BOOTS; b++)); do
		r=
		[[ -z $main_r ]] || r=$((main_r / BOOTS + (b < main_r % BOOTS ? 1 : 0)))
		BOOT_MAIN_R[b]=$r
		BOOT_STUDIES[b]=
		if [[ $BOOTS -eq 1 ]]; then
			BOOT_SECS[b]=${PLAN_SECONDS[0]}
		else
			BOOT_SECS[b]=$(seconds_of "${PLAN_ARGS[0]}" "$r")
		fi
		BOOT_MAIN_SECS[b]=${BOOT_SECS[b]}
	done
	for ((i = 1; i < ${#PLAN_NAME[@]}; i++)); do
		best=0
		for ((b = 1; b < BOOTS; b++)); do
			[[ ${BOOT_SECS[b]} -ge ${BOOT_SECS[best]} ]] || best=$b
		done
		BOOT_STUDIES[best]+=" $i"
		BOOT_SECS[best]=$((BOOT_SECS[best] + PLAN_SECONDS[i]))
	done
}

# guest_deadline B: boot B stops starting studies at this many seconds:
# its plan may run over its estimate by half (a minute at least), never
# past the budget.
guest_deadline() {
	local total slack
	total=${BOOT_SECS[$1]}
	slack=$((total / 2))
	[[ $slack -ge 60 ]] || slack=60
	total=$((total + slack))
	[[ $total -le $PLAN_BUDGET ]] || total=$PLAN_BUDGET
	echo "$total"
}

vm_timeout() {
	local extra=0

	[[ -z $TRACE_STALL ]] || extra=$TRACE_OVERHEAD
	echo "${BENCH_TIMEOUT:-$(($(guest_deadline "$1") + VM_OVERHEAD + extra))}"
}

print_plan() {
	local i runs total w=13 wi
	total=$(plan_total)
	for i in "${!PLAN_NAME[@]}"; do
		[[ ${#PLAN_NAME[i]} -le $w ]] || w=${#PLAN_NAME[i]}
	done
	printf 'plan: %s CPUs, threads %s, budget %s s\n' "$PLAN_CPUS" "$PLAN_THREADS" "$BUDGET"
	for i in "${!PLAN_NAME[@]}"; do
		runs=
		if [[ -n ${PLAN_ARGS[i]} && -n ${PLAN_REPEAT[i]} ]]; then
			runs=", ${PLAN_REPEAT[i]} round"
			[[ ${PLAN_REPEAT[i]} == 1 ]] || runs+=s
			runs+=" (runs per case)"
		fi
		printf '  %-*s about %4s s  %s%s\n' "$w" "${PLAN_NAME[i]}" "${PLAN_SECONDS[i]}" \
			"${PLAN_WHAT[i]}" "$runs"
	done
	for i in "${!DROPPED[@]}"; do
		printf '  dropped: %s\n' "${DROPPED[i]}"
	done
	[[ -z $TRACE_STALL ]] ||
		printf '  trace: every run with --trace-stall %s, a ring of %s KB per CPU (BENCH_TRACE_STALL)\n' \
			"$TRACE_STALL" "$TRACE_KB"
	total=$((total + (BOOTS - 1) * BOOT_SECONDS))
	for ((i = 0; i < BOOTS; i++)); do
		runs=${PLAN_NAME[0]}
		[[ -z ${BOOT_MAIN_R[i]} ]] || runs+=" (${BOOT_MAIN_R[i]} round$([[ ${BOOT_MAIN_R[i]} == 1 ]] || echo s))"
		for wi in ${BOOT_STUDIES[i]}; do
			runs+=", ${PLAN_NAME[wi]}"
		done
		printf '  boot %d of %d: about %s s: %s; studies start until %s s, the VM may run %s s\n' \
			$((i + 1)) "$BOOTS" "${BOOT_SECS[i]}" "$runs" "$(guest_deadline "$i")" "$(vm_timeout "$i")"
	done
	printf '  total: about %s s (%d min), %d boot%s (BENCH_BOOTS)\n' \
		"$total" $(((total + 59) / 60)) "$BOOTS" "$([[ $BOOTS == 1 ]] || echo s)"
}

# write_plan FILE B: boot B's plan as the guest's driver runs it: one line
# per study.
write_plan() {
	local i a line b=$2
	local -a args
	{
		echo "# Generated by tools/vm/bench.sh: the plan of boot $((b + 1)) of $BOOTS."
		echo "deadline=\$((\$(date +%s) + $(guest_deadline "$b")))"
		[[ -z $SCHED_FEATURES ]] || echo "sched_features $SCHED_FEATURES"
		[[ -z $TRACE_STALL ]] || echo "trace_setup $TRACE_STALL $TRACE_KB $TRACE_KEEP"
		for i in 0 ${BOOT_STUDIES[b]}; do
			if [[ -z ${PLAN_ARGS[i]} ]]; then
				echo "idle ${PLAN_SECONDS[i]} $(shell_quote "${PLAN_WHAT[i]}")"
				continue
			fi
			line="study $([[ $i == 0 ]] && echo "${BOOT_MAIN_SECS[b]}" || echo "${PLAN_SECONDS[i]}")"
			line+=" $(shell_quote "${PLAN_WHAT[i]}")"
			line+=" $(shell_quote "${PLAN_PARAMS[i]}")"
			read -r -a args <<<"${PLAN_ARGS[i]}"
			for a in "${args[@]}"; do
				line+=" $(shell_quote "$a")"
			done
			if [[ $i == 0 ]]; then
				[[ -z ${BOOT_MAIN_R[b]} ]] || line+=" -r ${BOOT_MAIN_R[b]}"
			else
				[[ -z ${PLAN_REPEAT[i]} ]] || line+=" -r ${PLAN_REPEAT[i]}"
			fi
			[[ -z $TRACE_STALL ]] || line+=" --trace-stall $TRACE_STALL"
			echo "$line"
		done
	} >"$1"
}

# The payload's driver: load the module, run the plan, unload.
write_driver() {
	cat >"$1" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/vm/bench.sh.
cd "$(dirname "$0")" || exit 1
KVBENCH_OUT=${KVBENCH_OUT:-$PWD/out}
# The accelerator (tcg, kvm, native) for the reports' provenance: the tool
# cannot tell it from inside the guest.
KVBENCH_ACCEL=${KVBENCH_ACCEL:-unknown}
export KVBENCH_OUT KVBENCH_ACCEL
mkdir -p "$KVBENCH_OUT"
params=/sys/module/kvbench/parameters
rc=0
deadline=0
# CPU time (utime + stime, in clock ticks) and number of owner threads.
owner_ticks() {
	for p in /proc/[0-9]*; do
		grep -qx 'kvbench-owner.*' "$p/comm" 2>/dev/null &&
			awk '{ print $14 + $15 }' "$p/stat"
	done | awk '{ s += $1 } END { print s + 0 }'
}
owner_count() {
	grep -lx 'kvbench-owner.*' /proc/[0-9]*/comm 2>/dev/null | wc -l
}
# Seconds left of the budget.
left() {
	echo $((deadline - $(date +%s)))
}
# After a study: how long it took against the plan.
took() {
	printf '(%s s; planned about %s s)\n\n' "$(($(date +%s) - t0))" "$1"
}
# study SECONDS WHAT PARAMS ARGS...: set the module parameters PARAMS
# (NAME=VALUE ...), run kvbench bench ARGS within what is left of the
# budget (@OUT/ is $KVBENCH_OUT/), put the parameters back.
study() {
	planned=$1 what=$2 set=$3
	shift 3
	if [ "$(left)" -lt 5 ]; then
		printf '== skipped, the budget ran out: %s\n\n' "$what"
		return
	fi
	echo "== $what"
	t0=$(date +%s)
	n=$#
	while [ "$n" -gt 0 ]; do
		a=$1
		shift
		case $a in @OUT/*) a=$KVBENCH_OUT/${a#@OUT/} ;; esac
		set -- "$@" "$a"
		n=$((n - 1))
	done
	undo=
	for kv in $set; do
		undo="$undo ${kv%%=*}=$(cat "$params/${kv%%=*}")"
		echo "${kv#*=}" >"$params/${kv%%=*}"
	done
	./kvbench bench --budget "$(left)" "$@" || rc=$?
	for kv in $undo; do
		echo "${kv#*=}" >"$params/${kv%%=*}"
	done
	took "$planned"
}
# idle SECONDS WHAT: the CPU idle owner threads use.
idle() {
	if [ "$(left)" -lt 25 ]; then
		printf '== skipped, the budget ran out: %s\n\n' "$2"
		return
	fi
	echo "== $2"
	t0=$(date +%s)
	for b in kthread kthread-percpu; do
		echo "$b" >/sys/class/misc/kvbench/backend
		sleep 1
		c0=$(owner_ticks)
		sleep 10
		c1=$(owner_ticks)
		echo "$b: $(owner_count) owner threads used $((c1 - c0)) clock ticks (1/100 s) in 10 s"
	done
	took "$1"
}
# BENCH_SCHED_FEATURES: sched_features WORD...: each into debugfs'
# sched/features (FEATURE or NO_FEATURE), then the features as they are.
sched_features() {
	f=/sys/kernel/debug/sched/features
	[ -e $f ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
	for w in "$@"; do
		echo "$w" >$f || { echo "bench: $w: not a scheduler feature here"; rc=1; }
	done
	echo "== sched features: $(cat $f 2>/dev/null)"
}
# BENCH_TRACE_STALL: the kernel's trace, which the first kvbench bench to
# see an operation over the threshold freezes (--trace-stall); the groups
# of events the kernel lacks are left out (rcu:* but rcu_utilization needs
# RCU_TRACE; irq_vectors is x86's).
trace_dir=
trace_events='sched/sched_switch sched/sched_waking sched/sched_wakeup
	sched/sched_wakeup_new sched/sched_migrate_task timer irq irq_vectors
	rcu workqueue kvbench'
# Who wakes a kvbench thread (the benchmark's, kvbench-owner/N): the
# waker's stack, under its sched_waking line.
trace_trigger='stacktrace if comm ~ "kvbench*"'
# trace_setup US KB KEEP: tracefs, KB of ring buffer per CPU, the events,
# on; KEEP: the seconds up to the stall that come back.
trace_setup() {
	TRACE_KEEP=${3:-2}
	t=/sys/kernel/tracing
	[ -e $t/trace_marker ] || mount -t tracefs nodev $t 2>/dev/null
	[ -e $t/trace_marker ] || t=/sys/kernel/debug/tracing
	if [ ! -e $t/trace_marker ]; then
		echo "bench: BENCH_TRACE_STALL: no tracefs here"
		rc=1
		return
	fi
	trace_dir=$t
	echo 0 >$t/tracing_on
	echo nop >$t/current_tracer
	# "7 (expanded: 1408)" before the buffer's first use
	trace_kb0=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $t/buffer_size_kb)
	echo "$2" >$t/buffer_size_kb
	echo 0 >$t/events/enable
	: >$t/trace
	on=
	for e in $trace_events; do
		[ -e $t/events/$e/enable ] && echo 1 >$t/events/$e/enable &&
			on="$on ${e#sched/}"
	done
	echo "$trace_trigger" >$t/events/sched/sched_waking/trigger 2>/dev/null &&
		on="$on, wakers' stacks"
	echo "== trace: $(cat $t/buffer_size_kb) KB per CPU, events:$on; frozen at the first operation over $1 us"
	echo
	echo 1 >$t/tracing_on
}
# After the plan: a frozen trace to $KVBENCH_OUT/trace.txt.gz, the buffers'
# stats (entries, overruns) to trace-stats.txt; natively, tracing as it
# was. Not in the VM, which reboots: turning the events off patches their
# call sites while the other vCPU runs through them, and once in the RT
# guest under TCG an interrupt handler hit a breakpoint of that patching
# and the kernel died ("Oops: int3" in __handle_irq_event_percpu, from
# system_enable_write) before the results were copied back.
trace_save() {
	t=$trace_dir
	frozen=$(cat $t/tracing_on)
	echo 0 >$t/tracing_on
	for c in $t/per_cpu/cpu*; do
		echo "${c##*/}"
		cat "$c/stats"
	done >"$KVBENCH_OUT/trace-stats.txt"
	if [ "$frozen" = 0 ]; then
		echo "== trace: frozen; saving its last $TRACE_KEEP s (trace.txt.gz)"
		# Up to the marker: the seconds before the stall, not the
		# whole ring, which would be megabytes over the serial port.
		end=$(grep -m 1 'kvbench stall: ' $t/trace |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i + 0; exit } }')
		awk -v from="${end:-0}" -v keep="$TRACE_KEEP" '
			BEGIN { from -= keep }
			/^#/ { print; next }
			{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = $i + 0; break } }
			ts >= from' $t/trace | gzip -c >"$KVBENCH_OUT/trace.txt.gz"
		echo "== trace: saved ($(wc -c <"$KVBENCH_OUT/trace.txt.gz") bytes)"
	else
		echo "== trace: not frozen (no operation over the threshold): not saved"
	fi
	[ "$KVBENCH_ACCEL" = native ] || return 0
	echo 0 >$t/events/enable
	echo "!$trace_trigger" >$t/events/sched/sched_waking/trigger 2>/dev/null
	echo "$trace_kb0" >$t/buffer_size_kb
	echo 1 >$t/tracing_on
}
insmod ./kvbench.ko || exit 1
. "./${1:-plan.sh}"
[ -z "$trace_dir" ] || trace_save
rmmod kvbench
exit $rc
EOF
	chmod +x "$1"
}

# boot_one B RESULTS PAYLOAD KERNEL MODE ACCEL CPUS: boot B's plan (in
# the VM, or natively with the module loaded anew), its reports under
# RESULTS/boot-B (or RESULTS itself with one boot), its output appended to
# RESULTS/bench.txt; its host steal and trace, when asked, reported there.
boot_one() {
	local b=$1 results=$2 payload=$3 kernel=$4 mode=$5 accel=$6 cpus=$7
	local out=$results status=0 stealer

	[[ $BOOTS -eq 1 ]] || out=$results/boot-$b
	mkdir -p "$out"
	[[ $BOOTS -eq 1 ]] ||
		printf '== boot %d of %d (%s)\n\n' "$b" "$BOOTS" "${out#"$REPO"/}" | keep -a "$results/bench.txt"
	if [[ $mode == native ]]; then
		"$REPO/tools/vm/host-steal" sample native "$WORK/steal-$b" &
		stealer=$!
		KVBENCH_OUT=$out KVBENCH_ACCEL=$accel "$payload/run-bench.sh" "plan-$b.sh" |
			stamp "$WORK/stamps-$b" | keep -a "$results/bench.txt" || status=$?
		kill "$stealer" 2>/dev/null || true
		wait "$stealer" 2>/dev/null || true
	else
		KVER=$kernel "$VM" run --payload "$payload" --timeout "$(vm_timeout $((b - 1)))" \
			--smp "$cpus" --out "$out" --snap-every "$SNAP_EVERY" \
			--steal "$WORK/steal-$b" \
			--log "$out/console.log" -- KVBENCH_ACCEL="$accel" ./run-bench.sh "plan-$b.sh" |
			stamp "$WORK/stamps-$b" | keep -a "$results/bench.txt" || status=$?
	fi
	steal_report "$cpus" "$WORK/steal-$b" "$WORK/stamps-$b" "$out" "$results/meta.txt" "$b"
	[[ -z $TRACE_STALL ]] || trace_report "$out" "$results/meta.txt"
	[[ $status -eq 0 ]] || echo "bench: boot $b of $BOOTS failed with status $status (see ${out#"$REPO"/})" >&2
	return "$status"
}

# pool_boots RESULTS: with several boots, the main suite's reports pooled
# into RESULTS/bench.json (kvbench merge) and each side study's report
# moved up beside it (a side study runs in one boot).
pool_boots() {
	local results=$1 f
	local -a mains=()

	[[ $BOOTS -gt 1 ]] || return 0
	for f in "$results"/boot-*/bench.json; do
		[[ -f $f ]] && mains+=("$f")
	done
	for f in "$results"/boot-*/*.json; do
		[[ -f $f && ${f##*/} != bench.json ]] && mv "$f" "$results/"
	done
	[[ ${#mains[@]} -gt 0 ]] || return 0
	step "merge: the main suite of ${#mains[@]} boots into ${results#"$REPO"/}/bench.json"
	[[ ${#mains[@]} -eq $BOOTS ]] ||
		echo "bench: only ${#mains[@]} of $BOOTS boots have a report of the main suite" >&2
	"$KVB" merge ${MAX_STEAL:+--max-steal "$MAX_STEAL"} -o "$results/bench.json" "${mains[@]}"
}

main() {
	local payload=$WORK/payload b kernel mode stamp results status=0 cpus busy accel=native
	local guest_kvb=$KVB
	local -a cross=()

	cpus=${BENCH_SMP:-$(nproc)}
	use_native && [[ ${BENCH_DRY_RUN:-} != 1 ]] && cpus=$(nproc)
	[[ ${BENCH_DRY_RUN:-} == 1 ]] || "$VM" deps build
	quiet "tool" make -C "$REPO/tools/kvbench"
	plan "$cpus"
	assign_boots
	if [[ ${BENCH_DRY_RUN:-} == 1 ]]; then
		print_plan
		return 0
	fi

	if use_native; then
		kernel=$(uname -r)
		mode=native
		[[ ! -d /sys/module/kvbench ]] ||
			die "a kvbench module is loaded already (DKMS?): rmmod kvbench first"
		step "NATIVE=1: loading kvbench into the running kernel $kernel for the benchmark"
		quiet "module" make -C "$REPO" module
	else
		step "setup (cached after the first run)"
		"$VM" setup
		kernel=$("$VM" kver)
		accel=$("$VM" accel)
		mode="VM, $(nproc) host CPUs, $cpus vCPUs, $accel"
		# kvbench-vm builds for a kernel of Debian unstable in its chroot,
		# for one of another architecture with the cross compiler.
		quiet "module ($kernel)" env KVER="$kernel" "$VM" kmake "$REPO" module
		# A guest of another architecture (KVBENCH_ARCH=arm64) runs the
		# tool built for it; this one still reads the results here.
		mapfile -t cross < <(KVER=$kernel "$VM" cross)
		if [[ ${#cross[@]} -gt 0 ]]; then
			mode+=", $(KVER=$kernel "$VM" arch)"
			quiet "tool ($(KVER=$kernel "$VM" arch))" make -C "$REPO/tools/kvbench" cross \
				CROSS_COMPILE="${cross[0]}" SYSROOT="${cross[1]}"
			guest_kvb=$REPO/tools/kvbench/cross/kvbench
		fi
	fi

	mkdir -p "$payload"
	cp "$REPO/module/kvbench.ko" "$guest_kvb" "$payload/"
	write_driver "$payload/run-bench.sh"
	for ((b = 0; b < BOOTS; b++)); do
		write_plan "$payload/plan-$((b + 1)).sh" "$b"
	done

	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	results=$REPO/results/$stamp-$kernel
	mkdir -p "$results"
	{
		echo "date: $(date -u '+%F %T UTC')"
		echo "kernel: $kernel"
		echo "mode: $mode"
		echo "host: $(nproc) CPUs, $(uname -m)"
		echo "commit: $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "args: ${BENCH_ARGS:-}"
		echo "budget: $BUDGET s"
		echo "boots: $BOOTS (main suite rounds per boot: ${BOOT_MAIN_R[*]:-as BENCH_ARGS says})"
		[[ -z $SCHED_FEATURES ]] || echo "sched features set: $SCHED_FEATURES"
		busy=$(host_busy)
		echo "host CPUs busy just before the run: $busy%"
	} >"$results/meta.txt"
	busy_warning "$busy"
	print_plan | tee "$results/plan.txt" >&2

	step "bench: $kernel ($mode); results in ${results#"$REPO"/}"
	for ((b = 1; b <= BOOTS; b++)); do
		boot_one "$b" "$results" "$payload" "$kernel" "$mode" "$accel" "$cpus" || status=$?
	done
	pool_boots "$results" || status=1
	if [[ -f $results/bench.json ]]; then
		# gnuplot, from tools/deps.txt (setup installed it for the VM).
		if ! "$VM" deps gnuplot; then
			echo "bench: no gnuplot, no plot" >&2
		elif "$KVB" plot "$results/bench.json" "$results/bench.png" >/dev/null; then
			step "plot: ${results#"$REPO"/}/bench.png"
		fi
	fi
	if [[ -z ${BENCH_ARGS:-} && -f $results/bench.json ]]; then
		echo
		echo "== headline figures (tools/kvbench/figures.py)"
		python3 "$REPO/tools/kvbench/figures.py" "$results" |
			tee "$results/figures.txt" || true
	fi
	# The answer last: per workload, the fastest backend and the others
	# against it (or, with too few runs, that they cannot tell).
	if [[ -f $results/bench.json ]]; then
		echo
		echo "== verdict (kvbench report ${results#"$REPO"/}/bench.json)"
		"$KVB" report "$results/bench.json" | tee "$results/verdict.txt" || true
	fi
	[[ $status -eq 0 ]] || echo "bench: failed with status $status (see $results)" >&2
	return "$status"
}

main "$@"
