#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# entry-test.sh - what the top-level entry points decide, checked on the
# host without building or booting anything (KTAP):
#   - `make` without headers for the running kernel stops with a message
#     naming the package and KDIR=, instead of building for another kernel;
#     with headers it builds for that kernel;
#   - `make install` installs the tool and its man page under DESTDIR and
#     PREFIX;
#   - `make check` runs the guest suites in VMs unless NATIVE=1, and a
#     native run leaves out the suites that could take the running kernel
#     down unless KVBENCH_DESTRUCTIVE=1 (its dry run prints the plan);
#   - KVBENCH_ACCEL decides the VM's accelerator, and only kvm or tcg; the
#     KVM probe boots the stock kernel whatever KVER names;
#   - `make bench` plans its suite to fit BENCH_BUDGET for any CPU count
#     (its dry run prints the plan and boots nothing), cutting what matters
#     least and saying so; the suite has MGET(64) beside BATCH(64);
#   - `make profile` profiles exactly one `kvbench bench` case, which its
#     dry run names (booting nothing), and rejects arguments kvbench does
#     not take, several cases and a sampling rate that is not a number;
#   - two debug-kernel.sh at once build the kernel once (a lock);
#   - kvbench-vm runs mmdebstrap with no inherited descriptor;
#   - `kvbench-vm reports` finds the reports in a console log that fail a
#     run, in the kernel log dumped at its end, and leaves out the allowed.
# KVBENCH_RUNNING_KVER stands in for `uname -r`.

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
n=0 failed=0

ok() {
	n=$((n + 1))
	if [[ $1 -eq 0 ]]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..41"

# A kernel version with no headers, and one with (the VM's, installed by
# make check's setup), if any.
none=0.0.0-kvbench-no-such-kernel
with=$(find /lib/modules -mindepth 2 -maxdepth 2 -name build -xtype d \
	-printf '%h\n' 2>/dev/null | head -n 1)
with=${with##*/}

out=$(make -s -C "$REPO" module KVBENCH_RUNNING_KVER=$none 2>&1)
st=$?
printf '%s\n' "$out" | sed 's/^/# /'
[[ $st -ne 0 && $out == *"linux-headers-$none"* && $out == *"make KDIR="* ]]
ok $? "make without headers for the running kernel fails, naming linux-headers-<version> and KDIR="

if [[ -n $with ]]; then
	out=$(make -n -C "$REPO" module KVBENCH_RUNNING_KVER="$with" 2>&1)
	[[ $out == *"-C /lib/modules/$with/build M=$REPO modules"* ]]
	ok $? "make with headers for the running kernel ($with) builds for it"
else
	echo "ok 2 - # SKIP no kernel headers installed"
	n=2
fi

# make install: the tool's, with PREFIX and DESTDIR passed on (a dry run).
out=$(make -n -C "$REPO" install PREFIX=/usr DESTDIR=/tmp/kvbench-stage 2>&1)
[[ $out == *"install -m 0755 kvbench /tmp/kvbench-stage/usr/bin/kvbench"* &&
	$out == *"install -m 0644 kvbench.1 /tmp/kvbench-stage/usr/share/man/man1/kvbench.1"* ]]
ok $? "make install PREFIX=/usr DESTDIR=... installs the tool and kvbench(1) there"

plan() { env -u NATIVE -u KVBENCH_DESTRUCTIVE -u CHECK_ONLY "$@" KVBENCH_CHECK_DRY_RUN=1 \
	KVBENCH_RUNNING_KVER="${with:-$none}" "$REPO/tools/vm/check.sh" 2>&1; }

out=$(plan)
printf '%s\n' "$out" | sed 's/^/# default: /'
[[ $out == *"vm debug"* && $out != *native* ]]
ok $? "make check without NATIVE=1 runs in VMs, even as root with headers"

out=$(plan NATIVE=0)
[[ $out == *"vm debug"* && $out != *native* ]]
ok $? "make check with NATIVE=0 runs in VMs"

out=$(plan NATIVE=1)
printf '%s\n' "$out" | sed 's/^/# NATIVE=1: /'
[[ $out == "native ${with:-$none}: suites functional stress trace" ]]
ok $? "NATIVE=1 runs natively, without the fuzzer and the lifecycle suite"

out=$(plan NATIVE=1 KVBENCH_DESTRUCTIVE=1)
[[ $out == "native ${with:-$none}: suites functional stress fuzz trace lifecycle" ]]
ok $? "NATIVE=1 KVBENCH_DESTRUCTIVE=1 runs every suite natively"

# A row whose kernel apt cannot name (an apt-cache that fails) stays in the
# plan and fails, and the rows after it stay too.
tmp=$(mktemp -d)
printf '#!/bin/sh\nexit 100\n' >"$tmp/apt-cache"
chmod +x "$tmp/apt-cache"
out=$(plan PATH="$tmp:$PATH")
rm -rf "$tmp"
printf '%s\n' "$out" | sed 's/^/# apt-cache failing: /'
[[ $out == *"vm 6.1: "*" set, but no such kernel was found: the row fails"* &&
	$out == *"vm 6.12-rt: "*" set, but no such kernel was found"* &&
	$out == *"vm 7.2: "* && $out == *arm64* && $out == *"vm smp4"* ]]
ok $? "a kernel apt cannot find keeps its row in make check's plan, as failing, and the rows after it"

# A kernel developer's ARCH in the environment does not choose the guest.
out=$(env -u KVER -u KVBENCH_ARCH ARCH=arm64 "$REPO/tools/vm/kvbench-vm" arch 2>&1)
out2=$(env -u KVER ARCH=x86_64 KVBENCH_ARCH=arm64 "$REPO/tools/vm/kvbench-vm" arch 2>&1)
echo "# kvbench-vm arch: ARCH=arm64: $out; ARCH=x86_64 KVBENCH_ARCH=arm64: $out2"
[[ $out == "$(dpkg --print-architecture)" && $out2 == arm64 ]]
ok $? "kvbench-vm's guest architecture is KVBENCH_ARCH's (or KVER's), never the environment's ARCH"

out=$(KVBENCH_ACCEL=tcg "$REPO/tools/vm/kvbench-vm" accel 2>&1)
[[ $out == tcg ]]
ok $? "KVBENCH_ACCEL=tcg makes the VM use TCG"

out=$(KVBENCH_ACCEL=xen "$REPO/tools/vm/kvbench-vm" accel 2>&1)
st=$?
[[ $st -ne 0 && $out == *"KVBENCH_ACCEL=xen"* ]]
ok $? "KVBENCH_ACCEL other than kvm or tcg is an error"

# The KVM probe boots the stock kernel, also for a run whose KVER is a
# label (make check's debug and KCSAN boots pass KVER=debug): here a QEMU
# that "boots" only the stock kernel, and a cache of our own, for the memo.
cache=${KVBENCH_CACHE:-$HOME/.cache/kvbench}
stock=$(cat "$cache/default-kver" 2>/dev/null)
if [[ -r /dev/kvm && -w /dev/kvm && -n $stock && -s $cache/kernels/$stock/vmlinuz &&
	-d $cache/initramfs ]]; then
	tmp=$(mktemp -d)
	mkdir -p "$tmp/bin" "$tmp/cache/kernels"
	cp -a "$cache/initramfs" "$cache/default-kver" "$tmp/cache/"
	ln -s "$cache/kernels/$stock" "$tmp/cache/kernels/$stock"
	cat >"$tmp/bin/qemu-system-x86_64" <<-EOF
		#!/bin/sh
		case "\$*" in *"kernels/$stock/vmlinuz"*) echo "<kvbench-vm:start>" ;; esac
	EOF
	chmod +x "$tmp/bin/qemu-system-x86_64"
	out=$(env -u KVBENCH_ACCEL KVER=debug KVBENCH_CACHE="$tmp/cache" PATH="$tmp/bin:$PATH" \
		"$REPO/tools/vm/kvbench-vm" accel 2>&1)
	printf '%s\n' "$out" | sed 's/^/# KVER=debug: /'
	[[ $out == *kvm && $out != *fetching* ]]
	ok $? "the KVM probe boots the stock kernel when KVER names another (debug)"
	rm -rf "$tmp"
else
	n=$((n + 1))
	echo "ok $n - # SKIP no writable /dev/kvm, or no cached stock kernel to probe with"
fi

# The plan `make bench` makes for CPUS (BENCH_SMP), with more env.
bench_plan() {
	local cpus=$1
	shift
	env -u BENCH_ARGS -u BENCH_BUDGET -u BENCH_REPEAT -u BENCH_SMP -u BENCH_BOOTS -u NATIVE "$@" BENCH_DRY_RUN=1 \
		make -s -C "$REPO" bench SMP="$cpus" 2>&1
}

# Seconds of the plan's "total: about N s" line.
plan_seconds() { sed -n 's/^  total: about \([0-9]*\) s .*/\1/p' <<<"$1"; }

for cpus in 2 16 64 128; do
	out=$(bench_plan $cpus)
	printf '%s\n' "$out" | sed "s/^/# $cpus CPUs: /"
	total=$(plan_seconds "$out")
	threads=$(awk -v n=$cpus 'BEGIN { for (t = 1; t < n; t *= 2) s = s t ","; print s n }')
	[[ -n $total && $total -le 960 && $out == *"threads $threads,"* &&
		$out == *"main suite"* && $out != *"==> setup"* ]]
	ok $? "make bench plans $cpus CPUs (threads $threads) within the default budget of 960 s, booting nothing"
done

out=$(bench_plan 2)
[[ $out == *"multi "*"MGET(64) against BATCH(64)"* ]]
ok $? "make bench plans MGET(64) beside BATCH(64) for the kernel backends"

out=$(bench_plan 2 BENCH_BUDGET=40)
printf '%s\n' "$out" | sed 's/^/# budget 40: /'
total=$(plan_seconds "$out")
[[ -n $total && $total -le 40 && $out == *"dropped: the side studies' repeats"* &&
	$out == *"dropped: fd ("* && $out == *"dropped: the main suite's cases that one round cannot fit"* ]]
ok $? "BENCH_BUDGET=40 cuts repeats, then side studies, and says what it dropped"

out=$(bench_plan 4 "BENCH_ARGS=-b rcu -m get -t 1")
[[ $out == *"custom"*"kvbench bench -b rcu -m get -t 1"* && $out != *"side study"* ]]
ok $? "BENCH_ARGS plans that one kvbench run instead of the suite"

out=$(bench_plan 2 BENCH_REPEAT=5 BENCH_BUDGET=3600)
[[ $out == *"main suite"*", 5 rounds (runs per case)"* && $out != *"dropped"* ]]
ok $? "BENCH_REPEAT=5 plans 5 rounds, 5 runs per case (for kvbench compare)"

out=$(bench_plan 2 BENCH_REPEAT=5 BENCH_BUDGET=3600 BENCH_BOOTS=3)
[[ $out == *"  boot 1 of 3: about "*": main (2 rounds), "* &&
	$out == *"  boot 2 of 3: about "*": main (2 rounds), "* &&
	$out == *"  boot 3 of 3: about "*": main (1 round), "* && $out == *", 3 boots (BENCH_BOOTS)"* ]]
ok $? "BENCH_BOOTS=3 spreads the main suite's 5 rounds over 3 boots (2, 2, 1) and the side studies among them"

out=$(bench_plan 2)
[[ $out == *"  boot 8 of 8: about "*": main (1 round)"* && $out == *", 8 boots (BENCH_BOOTS)"* ]]
ok $? "make bench by default runs each of the main suite's 8 rounds in a boot of its own"

out=$(bench_plan 2 "BENCH_ARGS=-b rcu -m get -t 1" BENCH_BOOTS=4)
[[ $out == *"  boot 1 of 1: "* && $out == *", 1 boot (BENCH_BOOTS)"* ]]
ok $? "BENCH_ARGS runs in one boot"

out=$(bench_plan 2 BENCH_BOOTS=0)
st=$?
[[ $st -ne 0 && $out == *"BENCH_BOOTS=0: not a number of boots"* ]]
ok $? "BENCH_BOOTS that is not a number of boots is an error"

out=$(bench_plan 2 BENCH_REPEAT=many)
st=$?
[[ $st -ne 0 && $out == *"BENCH_REPEAT=many"* ]]
ok $? "BENCH_REPEAT that is not a number of runs is an error"

out=$(bench_plan 2 BENCH_BUDGET=soon)
st=$?
[[ $st -ne 0 && $out == *"BENCH_BUDGET=soon"* ]]
ok $? "BENCH_BUDGET that is not a number of seconds is an error"

# What `make profile` would run (PROFILE_DRY_RUN), with more env.
profile_plan() {
	env -u PROFILE_ARGS -u PROFILE_FREQ -u PROFILE_SMP -u PROFILE_TIMEOUT -u NATIVE "$@" \
		PROFILE_DRY_RUN=1 make -s -C "$REPO" profile SMP=2 2>&1
}

out=$(profile_plan)
st=$?
printf '%s\n' "$out" | sed 's/^/# profile: /'
[[ $st -eq 0 && $out == *"perf record -e cpu-clock -F 999 -a -g -- kvbench bench -b rcu -m get -t 2 --batch 1 "* &&
	$out == *"one case"* && $out != *"==> setup"* ]]
ok $? "make profile by default profiles RCU GETs at 2 threads, booting nothing in its dry run"

out=$(profile_plan "PROFILE_ARGS=-b rcu -m get -t 2 --batch 64 -D 5s" PROFILE_FREQ=499)
st=$?
[[ $st -eq 0 && $out == *"-F 499 -a -g -- kvbench bench -b rcu -m get -t 2 --batch 64 -D 5s"* ]]
ok $? "PROFILE_ARGS and PROFILE_FREQ choose the case and the sampling rate"

out=$(profile_plan "PROFILE_ARGS=-b rcu,rwlock -m get -t 2")
st=$?
[[ $st -ne 0 && $out == *"is 2 cases"* ]]
ok $? "PROFILE_ARGS of several cases is an error"

out=$(profile_plan "PROFILE_ARGS=-b rcu --no-such-option")
st=$?
[[ $st -ne 0 && $out == *"kvbench bench rejects it"*"no-such-option"* ]]
ok $? "PROFILE_ARGS that kvbench bench rejects is an error before anything boots"

out=$(profile_plan PROFILE_FREQ=fast)
st=$?
[[ $st -ne 0 && $out == *"PROFILE_FREQ=fast"* ]]
ok $? "PROFILE_FREQ that is not a number of samples per second is an error"

# Two debug-kernel.sh at once (make check's lint and make lint, say) must
# not build in one directory together. A stand-in make on PATH "builds" in
# two seconds and logs it; the source tree is the cached one, linked.
debug_kernel_twice() {
	local tmp st=0 ksrc
	tmp=$(mktemp -d) || return 1
	ksrc=$("$REPO/tools/vm/kvbench-vm" ksrc 2>/dev/null) || { rm -rf "$tmp"; return 2; }
	mkdir -p "$tmp/cache/src" "$tmp/bin"
	ln -s "$ksrc" "$tmp/cache/src/linux-source-6.12"
	cat >"$tmp/bin/make" <<'MAKE'
#!/bin/bash
out=
for a in "$@"; do [[ $a == O=* ]] && out=${a#O=}; done
case " $* " in
*" bzImage "*)
	echo "start $$" >>"$FAKE_LOG"; sleep 2; echo "end $$" >>"$FAKE_LOG" ;;
*" x86_64_defconfig "* | *" allnoconfig "*)
	: >"$out/.config" ;;
esac
MAKE
	chmod +x "$tmp/bin/make"
	export FAKE_LOG=$tmp/log
	PATH=$tmp/bin:$PATH KVBENCH_CACHE=$tmp/cache "$REPO/tools/vm/debug-kernel.sh" >"$tmp/out1" 2>&1 &
	PATH=$tmp/bin:$PATH KVBENCH_CACHE=$tmp/cache "$REPO/tools/vm/debug-kernel.sh" >"$tmp/out2" 2>&1 || st=1
	wait $! || st=1
	grep -h -e '^start' -e '^end' -e 'waiting' "$tmp/log" "$tmp/out1" "$tmp/out2" |
		sed 's/^/# debug-kernel: /'
	# One build, and both got its directory.
	[[ $(grep -c '^start' "$tmp/log") -eq 1 ]] || st=1
	[[ $(tail -n 1 "$tmp/out1") == "$tmp/cache/debug-kernel/"* &&
		$(tail -n 1 "$tmp/out1") == "$(tail -n 1 "$tmp/out2")" ]] || st=1
	rm -rf "$tmp"
	return $st
}

debug_kernel_twice
st=$?
if [[ $st -eq 2 ]]; then
	n=$((n + 1))
	echo "ok $n - # SKIP no linux-source-6.12 tree to link"
else
	ok $st "two debug-kernel.sh at once build the kernel once, the second waiting for the first"
fi

# A console log as kvbench-vm run --log saves it: a report on the live
# console, the same in the kernel log dumped at the end, and a KCSAN
# report that --allow-report would let pass. The kernel writes its lines
# to the console with \r\n, the guest's programs (its port raw) with \n.
reports_log() {
	printf '%s\r\n' "[   1.000000] Linux version 6.12.0" \
		"[  90.100000] INFO: task kvbench_test:123 blocked for more than 30 seconds."
	printf '%s\n' "ok 1 kvbench" "<kvbench-vm:exit 0>" "<kvbench-vm:dmesg>" \
		"[  80.000000] BUG: KCSAN: data-race in tick_sched_do_timer / tick_nohz_next_event" \
		"[  80.000001] read to 0xffff88 of 4 bytes by task 0 on cpu 1:" \
		"[  90.100000] INFO: task kvbench_test:123 blocked for more than 30 seconds." \
		"[  90.100001]       Not tainted 6.12.0 #1" \
		"</kvbench-vm:dmesg>"
}
tmp=$(mktemp -d)
reports_log >"$tmp/console"
out=$("$REPO/tools/vm/kvbench-vm" reports "$tmp/console" 'BUG: KCSAN: [^[]*$')
printf '%s\n' "$out" | head -n 3 | sed 's/^/# reports: /'
[[ $(head -n 1 <<<"$out") == *"INFO: task kvbench_test:123 blocked for more than 30 seconds."* &&
	$out != *KCSAN* && $out == *"Not tainted"* ]]
ok $? "kvbench-vm reports prints the report in the dumped kernel log, leaving out the allowed one"

out=$("$REPO/tools/vm/kvbench-vm" reports "$tmp/console")
[[ $(head -n 1 <<<"$out") == *"BUG: KCSAN: data-race in tick_sched_do_timer"* ]]
ok $? "kvbench-vm reports, with nothing allowed, starts with the first report"

grep -v -e KCSAN -e INFO -e Not -e 'read to' "$tmp/console" >"$tmp/clean"
out=$("$REPO/tools/vm/kvbench-vm" reports "$tmp/clean")
[[ -z $out ]]
ok $? "kvbench-vm reports prints nothing for a clean log"
rm -rf "$tmp"

# host-steal: each case's share of the vCPUs' time that waited for a host
# CPU. Two vCPUs; the second case, 2.0 to 3.0 s, waited 1 s of its 2.
tmp=$(mktemp -d)
printf '%s\n' "1000000 0" "2000000 0" "3000000 1000000000" "4000000 1000000000" >"$tmp/samples"
printf '%s\n' "1000000 kvbench: 2 cases x 1 run, about 2 s" \
	"2000000 kvbench: [1/2] rcu get threads=1 batch=1 fd=per-thread 9 ops/s" \
	"3000000 kvbench: [2/2] kthread get threads=1 batch=1 fd=per-thread 9 ops/s" \
	"3500000 backend mix" >"$tmp/stamps"
out=$("$REPO/tools/vm/host-steal" report 2 "$tmp/samples" "$tmp/stamps")
printf '%s\n' "$out" | sed 's/^/# host-steal: /'
[[ $out == "0.0% kvbench: [1/2] rcu get"*$'\n'"50.0% kvbench: [2/2] kthread get"*$'\n'"run 16.7% 3" ]]
ok $? "host-steal report gives each case and the run its share of time waited for a host CPU"

printf '%s\n' "1000000 kvbench: 2 cases x 1 round, about 2 s" \
	"2000000 kvbench: [round 1/1, 1/2] rcu get threads=1 batch=1 fd=per-thread 9 ops/s" \
	"3000000 kvbench: [round 1/1, 2/2] kthread get threads=1 batch=1 fd=per-thread 9 ops/s" \
	"3500000 backend mix" >"$tmp/rstamps"
out=$("$REPO/tools/vm/host-steal" report 2 "$tmp/samples" "$tmp/rstamps")
[[ $out == "0.0% kvbench: [round 1/1, 1/2] rcu get"*$'\n'"50.0% kvbench: [round 1/1, 2/2] kthread get"*$'\n'"run 16.7% 3" ]]
ok $? "host-steal report gives each run of a shuffled run its share too"

head -n 1 "$tmp/samples" >"$tmp/one"
out=$("$REPO/tools/vm/host-steal" report 2 "$tmp/one" "$tmp/stamps")
[[ -z $out ]]
ok $? "host-steal report says nothing from a single sample"

out=$("$REPO/tools/vm/host-steal" report 0 "$tmp/samples" "$tmp/stamps" 2>&1)
[[ $? -ne 0 && $out == *"not a number of CPUs"* ]]
ok $? "host-steal report refuses a CPU count of 0"

# A live process: sampled each second until it exits, its pid file
# written after the sampler started (as QEMU's is).
sleep 2.5 &
spid=$!
"$REPO/tools/vm/host-steal" sample "$tmp/pid" "$tmp/live" &
hpid=$!
sleep 0.3
echo "$spid" >"$tmp/pid"
wait "$spid"
timeout 5 tail --pid="$hpid" -f /dev/null
st=$?
lines=$(grep -cE '^[0-9]{16,} [0-9]+$' "$tmp/live")
echo "# host-steal sample: $lines samples; the sampler ended: $((st == 0))"
[[ $st -eq 0 && $lines -ge 2 ]]
ok $? "host-steal sample reads a process's run_delay each second and ends with it"
wait "$hpid" 2>/dev/null
rm -rf "$tmp"

# The chroot of unstable (a 7.2 kernel's builds): mmdebstrap runs with no
# descriptor open but 0-2. apt inside it writes to the lowest free one from
# dash ('cat >&N'), which cannot parse N over 9; a cold make check's open
# descriptors made it 11 and the chroot was never made. Here 3-9 are held
# open, and a stand-in mmdebstrap records the lowest free descriptor.
tmp=$(mktemp -d)
cat >"$tmp/mmdebstrap" <<'EOF'
#!/usr/bin/env python3
import os, sys
open(os.environ["KVB_FAKE_FD"], "w").write("%d\n" % os.open("/dev/null", os.O_RDONLY))
sys.exit(1)
EOF
chmod +x "$tmp/mmdebstrap"
mkdir "$tmp/cache" "$tmp/dir"
out=$(exec 3>/dev/null 4>/dev/null 5>/dev/null 6>/dev/null 7>/dev/null 8>/dev/null 9>/dev/null
      PATH="$tmp:$PATH" KVBENCH_CACHE="$tmp/cache" KVB_FAKE_FD="$tmp/fd" \
	      KVER=7.2.13+deb14-amd64 "$REPO/tools/vm/kvbench-vm" kmake "$tmp/dir" 2>&1)
fd=$(cat "$tmp/fd" 2>/dev/null)
echo "# kmake's mmdebstrap: lowest free descriptor ${fd:-none}"
[[ $out == *"mmdebstrap failed"* && -n $fd && $fd -le 9 ]]
ok $? "kvbench-vm runs mmdebstrap with no inherited descriptor (apt's 'cat >&N' needs N <= 9)"
rm -rf "$tmp"

echo "# Totals: pass:$((n - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
[[ $failed -eq 0 ]]
