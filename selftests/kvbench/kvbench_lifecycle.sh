#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload kvbench over and over and check that nothing stays behind:
#
#   1. rmmod is refused while /dev/kvbench is open, and works once closed;
#      an unknown backend= fails the load with the valid names in the log
#   2. KVBENCH_CYCLES (50) insmod/rmmod cycles, going through the backends
#      the module lists (sysfs backends, read at the first load) with the
#      backend= parameter, with traffic (and entries left in the map) in
#      between
#   3. processes SIGKILLed while they hammer the kthread (and the
#      kthread-percpu) backend through two-slot queues leave nothing behind:
#      entries and bytes agree, the owner threads go away, rmmod works
#   4. slab memory is back where it started (within noise) after a load
#      that grew it by several megabytes
#
# POSIX sh (busybox). Output is KTAP. Needs root, module support, the module
# file ($KVBENCH_KO, loaded with $KVBENCH_INSMOD if set, else insmod;
# else modprobe kvbench) and the kvbench CLI ($KVBENCH_CLI, else
# $KVBENCH_PAYLOAD/kvbench, ../kvbench, ./kvbench,
# ../../tools/kvbench/kvbench or $PATH: lib.sh's kvb_find_cli). The
# module must not be loaded, or must be unloadable: it is reloaded at the
# end if it was. Exit status: 0 pass, 1 fail, 4 (KSFT_SKIP) cannot run.

dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$dir/lib.sh"
sysdir=$kvb_sysdir
cycles=${KVBENCH_CYCLES:-50}
backends=
ntests=6
num=0
failed=0
was_loaded=0
pids=

skip_all()
{
	echo "1..0 # SKIP $*"
	exit $ksft_skip
}

ok()
{
	num=$((num + 1))
	echo "ok $num lifecycle: $*"
}

not_ok()
{
	num=$((num + 1))
	failed=1
	echo "not ok $num lifecycle: $*"
}

diag()
{
	echo "# $*"
}

loaded()
{
	kvb_is_loaded
}

# load [PARAM=VALUE...]: load the module and wait for /dev/kvbench.
load()
{
	kvb_load "$@" || return 1
	kvb_wait_dev
}

# nth N WORD...: the word N of the words, counting from 0, round and round.
nth()
{
	n=$1
	shift
	shift $((n % $#))
	echo "$1"
}

unload()
{
	rmmod kvbench 2>/dev/null
}

# The owner threads of the kthread backend still alive.
owner_threads()
{
	grep -l '^kvbench-owner' /proc/[0-9]*/comm 2>/dev/null | wc -l
}

# Slab memory in kB, after giving back what can be given back: shrinking a
# cache also empties its KASAN quarantine on debug kernels.
slab_kb()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

cleanup()
{
	rc=$?
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	exec 3<&- 2>/dev/null
	if loaded; then
		unload
	fi
	if [ "$was_loaded" = 1 ] && ! loaded; then
		load >/dev/null 2>&1
	fi
	exit "$rc"
}

echo "TAP version 13"

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -e /proc/modules ] || skip_all "this kernel has no module support"
if [ -n "$KVBENCH_KO" ]; then
	[ -r "$KVBENCH_KO" ] || skip_all "KVBENCH_KO=$KVBENCH_KO is not readable"
else
	modprobe -n kvbench 2>/dev/null ||
		skip_all "no KVBENCH_KO and modprobe cannot find kvbench"
fi

cli=$(kvb_find_cli "$dir")
[ -n "$cli" ] || skip_all "the kvbench CLI was not found (set KVBENCH_CLI)"

if loaded; then
	unload || skip_all "kvbench is loaded and cannot be unloaded"
	was_loaded=1
fi

kvb_traps cleanup

echo "1..$ntests"
diag "module ${KVBENCH_KO:-kvbench (modprobe)}, CLI $cli, $cycles cycles"
slab0=$(slab_kb)

# 1. An open file pins the module.
t0=$(date +%s)
if ! load; then
	not_ok "rmmod refused while a file is open (load failed)"
else
	backends=$(kvb_backends)
	exec 3</dev/kvbench
	refcnt=$(cat /sys/module/kvbench/refcnt)
	if unload; then
		not_ok "rmmod refused while a file is open (rmmod succeeded, refcnt was $refcnt)"
		load
	elif ! loaded || [ ! -c /dev/kvbench ]; then
		not_ok "rmmod refused while a file is open (the module half went away)"
	else
		exec 3<&-
		if ! unload; then
			not_ok "rmmod refused while a file is open (rmmod failed after close)"
		elif loaded || [ -e /dev/kvbench ]; then
			not_ok "rmmod refused while a file is open (left /sys/module or /dev behind)"
		else
			ok "rmmod refused while a file is open (refcnt $refcnt), works once closed"
		fi
	fi
	exec 3<&-
fi

# 1b. An unknown backend fails the load, and the log names the valid ones.
mark="kvbench lifecycle: unknown backend $$"
echo "$mark" >/dev/kmsg 2>/dev/null
if load backend=no-such-backend 2>/dev/null; then
	not_ok "backend=no-such-backend refused at load (the load succeeded)"
	unload
elif loaded; then
	not_ok "backend=no-such-backend refused at load (/sys/module/kvbench left)"
else
	log=$(dmesg | sed -n "/$mark/,\$p")
	if [ -n "$backends" ] && echo "$log" | grep -q "valid backends: $backends"; then
		ok "backend=no-such-backend refused at load, the log lists the valid ones"
	else
		not_ok "backend=no-such-backend refused at load, but no list of valid backends in the log"
		diag "$log"
	fi
fi

# 2. Cycles with traffic in between; each unload finds entries to free.
bad=0
i=0
b=
if [ -z "$backends" ]; then
	diag "no list of backends from the first load"
	bad=1
fi
while [ $i -lt "$cycles" ] && [ $bad -eq 0 ]; do
	# shellcheck disable=SC2086 # one word per backend
	b=$(nth $i $backends)
	if ! load backend="$b"; then
		diag "cycle $i: load backend=$b failed"
		bad=1
		break
	fi
	cur=$(cat $sysdir/backend)
	[ "$cur" = "$b" ] || { diag "cycle $i: backend is '$cur', not $b"; bad=1; }
	"$cli" set "cycle/$i" "value $i" || bad=1
	got=$("$cli" get "cycle/$i") || bad=1
	[ "$got" = "value $i" ] || { diag "cycle $i: get returned '$got'"; bad=1; }
	"$cli" set "cycle/$i/gone" "x" && "$cli" del "cycle/$i/gone" || bad=1
	"$cli" set "cycle/$i/big" "$(printf '%0600d' "$i")" || bad=1
	"$cli" nop || bad=1
	n=$(cat $sysdir/entries)
	[ "$n" = 2 ] || { diag "cycle $i: $n entries, expected 2"; bad=1; }
	if ! unload; then
		diag "cycle $i: rmmod failed"
		bad=1
	elif loaded || [ -e /dev/kvbench ]; then
		diag "cycle $i: rmmod left /sys/module/kvbench or /dev/kvbench"
		bad=1
	fi
	i=$((i + 1))
	# A line now and then: the VM runner takes a long silence for a hang.
	[ $((i % 5)) -ne 0 ] || diag "cycle $i of $cycles done"
done
owners=$(owner_threads)
if [ $bad -eq 0 ] && [ "$owners" -eq 0 ]; then
	ok "$cycles insmod/rmmod cycles with traffic, backends $backends in turn"
else
	[ "$owners" -eq 0 ] || diag "$owners kvbench-owner threads left"
	not_ok "$cycles insmod/rmmod cycles with traffic (failed in cycle $((i - 1)), backend $b)"
fi
loaded && unload

# 3. Kill processes while they wait on an owner thread's full queue.
kill_test()
{
	backend=$1
	bad=0
	nkill=${KVBENCH_KILL_PROCS:-6}
	if ! load backend="$backend" queue_len=2 kthread_spin_us=0 2>/dev/null; then
		if [ "$backend" = kthread ]; then
			not_ok "SIGKILL while blocked on the $backend backend (load failed)"
		else
			num=$((num + 1))
			echo "ok $num lifecycle: SIGKILL while blocked on the $backend backend # SKIP not built"
		fi
		return
	fi
	pids=
	j=0
	while [ $j -lt "$nkill" ]; do
		"$cli" bench -b current -t 4 --no-pin -m 40:40:20 -k 256 \
			--key-size 16 --value-size 64 -D 600 -w 0 -r 1 -q \
			>/dev/null 2>&1 &
		pids="$pids $!"
		j=$((j + 1))
	done
	# Callers find the queue full at a rate, not at once: on a debug
	# kernel and a slow host, none had after 3 s (stop 24's CI). Wait for
	# the first, for at most 60 s of wall time (a starved shell's
	# sleep 1 may take seconds), well inside the processes' 600.
	start=$(date +%s)
	sleep 3
	full=$(cat $sysdir/queue_full)
	while [ "$full" -eq 0 ] && [ $(($(date +%s) - start)) -lt 60 ]; do
		sleep 1
		full=$(cat $sysdir/queue_full)
	done
	t=$(($(date +%s) - start))
	hwm=$(cat $sysdir/queue_hwm)
	for p in $pids; do
		kill -9 "$p" 2>/dev/null || { diag "process $p was gone before SIGKILL"; bad=1; }
	done
	for p in $pids; do
		wait "$p"
		st=$?
		[ $st -eq 137 ] || { diag "process $p exited with $st, not by SIGKILL"; bad=1; }
	done
	pids=
	entries=$(cat $sysdir/entries)
	bytes=$(cat $sysdir/bytes)
	# Every bench entry is a 16-byte key, a 64-byte value and 64 overhead.
	if [ "$bytes" -ne $((entries * 144)) ] || [ "$entries" -gt 256 ]; then
		diag "entries $entries and bytes $bytes disagree (expected $((entries * 144)) bytes, at most 256 entries)"
		bad=1
	fi
	# The map still works.
	"$cli" set after/kill ok && [ "$("$cli" get after/kill)" = ok ] || bad=1
	if ! unload; then
		diag "rmmod failed after the kill"
		bad=1
	fi
	owners=$(owner_threads)
	[ "$owners" -eq 0 ] || { diag "$owners kvbench-owner threads left"; bad=1; }
	desc="SIGKILL while blocked on the $backend backend ($nkill processes, queue_full $full, queue_hwm $hwm, $entries entries left)"
	if [ "$full" -eq 0 ]; then
		diag "no caller found the queue full in $t s: nothing was blocked"
		bad=1
	fi
	if [ $bad -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
	loaded && unload
}

kill_test kthread
kill_test kthread-percpu

# 4. Grow slab by a few MB, unload, and see it come back.
bad=0
if ! load backend=rcu; then
	not_ok "slab back to where it started (load failed)"
else
	"$cli" bench -b current -t 1 -m get -k 2048 --key-size 16 \
		--value-size 4000 -n 1 -w 0 -r 1 -q >/dev/null 2>&1 || bad=1
	n=$(cat $sysdir/entries)
	[ "$n" -ge 2048 ] || { diag "only $n entries after the fill"; bad=1; }
	grown=$(slab_kb)
	unload || bad=1
	slab1=$(slab_kb)
	growth=$((grown - slab0))
	delta=$((slab1 - slab0))
	# Noise: other caches come and go; a leak of the map would be ~all of it.
	limit=$((growth / 4))
	[ $limit -ge 1024 ] || limit=1024
	desc="slab back to where it started (before $slab0 kB, loaded +$growth kB, after unload $delta kB, limit $limit kB)"
	if [ $growth -lt 4096 ]; then
		diag "the load did not grow slab by 4 MB: nothing measured"
		bad=1
	fi
	if [ $bad -eq 0 ] && [ $delta -le $limit ]; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
fi
diag "took $(($(date +%s) - t0)) s"

[ $failed -eq 0 ]
