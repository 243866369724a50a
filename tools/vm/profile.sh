#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh - `make profile`: one case of `kvbench bench` under
# `perf record` in the guest, and the profile brought back to the host.
#
# It builds the module and the kvbench tool, boots the guest kernel with
# them and Debian's perf (linux-perf, from tools/deps.txt, with its shared
# libraries) in the payload, loads the module and runs
#
#   perf record -e cpu-clock -F PROFILE_FREQ -a -g -- kvbench bench PROFILE_ARGS
#
# cpu-clock: under TCG the guest has no hardware counters, only software
# events; -a: the owner backends' kernel threads and the interrupts count
# too. The guest reports on its own data, while the module is still loaded:
# perf resolves the kernel's symbols from a copy of /proc/kallsyms and the
# module's (its static functions included) from the module's copy under
# /lib/modules/<release>/extra, where perf looks for it, as [kvbench].
#
# Every run is kept under results/<UTC time>-<kernel>-profile/ (git-ignored),
# as for `make bench`; kvbench-vm --out copies back what the guest wrote:
#   perf-report.txt     perf report --stdio: flat, self time per symbol
#                       (comm, shared object, symbol), no call graphs
#   perf-dso.txt        the same per shared object: the kernel, [kvbench]
#                       (the module), libc, the tool
#   perf-callgraph.txt  perf report --stdio: per symbol above 0.5%, who
#                       called it: its callers below it, the branches above
#                       0.5% (leaf first: the user stack, which has no
#                       frame pointers, would split a root-first tree into
#                       slivers)
#   perf.folded         one line per distinct stack, "comm;outer;...;leaf
#                       COUNT" (the input format of flame-graph tools;
#                       Debian 12 packages none), heaviest first
#   perf.log            what perf report and perf script said (warnings)
#   bench.json          the case's kvbench report
#   profile.txt         what was printed; meta.txt, console.log
#
# Environment (make variables: `make profile PROFILE_ARGS="..."`):
#   PROFILE_ARGS     kvbench bench arguments of the one case to profile
#                    (word-split; default "-b rcu -m get -t 2 --batch 1
#                    -D 5s -r 1": RCU GETs on 2 threads for 5 s, once);
#                    more than one case is an error
#   PROFILE_FREQ     samples per second and CPU (default 999)
#   PROFILE_DRY_RUN  1: check the arguments, print what would run and stop
#                    (no setup, no VM)
#   PROFILE_SMP      vCPUs (default: nproc); SMP is the same
#   PROFILE_TIMEOUT  seconds the VM may run (default: the case plus 300)
#   KVER             the guest kernel, as for check.sh

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly VM=$REPO/tools/vm/kvbench-vm
readonly KVB=$REPO/tools/kvbench/kvbench
readonly DEFAULT_ARGS="-b rcu -m get -t 2 --batch 1 -D 5s -r 1"
readonly ARGS=${PROFILE_ARGS:-$DEFAULT_ARGS}
readonly FREQ=${PROFILE_FREQ:-999}
SMP_=${PROFILE_SMP:-${SMP:-}}
# What the VM needs besides the case: boot, insmod, perf report and perf
# script under emulation, copying back.
readonly VM_OVERHEAD=300

step() { printf '==> %s\n' "$*" >&2; }
die() { printf 'profile: %s\n' "$*" >&2; exit 1; }

[[ $FREQ =~ ^[1-9][0-9]*$ && $FREQ -le 100000 ]] ||
	die "PROFILE_FREQ=$FREQ: not a sampling frequency in Hz (1-100000)"
[[ -z $SMP_ || $SMP_ =~ ^[1-9][0-9]*$ ]] ||
	die "PROFILE_SMP=$SMP_: not a number of CPUs"
[[ -z ${PROFILE_TIMEOUT:-} || $PROFILE_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
	die "PROFILE_TIMEOUT=$PROFILE_TIMEOUT: not a number of seconds"
[[ ${NATIVE:-} != 1 ]] ||
	die "NATIVE=1: make profile runs in the VM only"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-profile.XXXXXX")
readonly WORK
trap 'rm -rf "$WORK"' EXIT

# quiet NAME CMD...: run a build step, showing its output only on failure.
quiet() {
	local name=$1
	shift
	step "build: $name"
	if ! "$@" >"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log" >&2
		echo "profile: building $name failed" >&2
		exit 1
	fi
}

# Quote $1 for a POSIX shell (the guest's sh).
shell_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# tee that outlives a Ctrl-C: the VM runner then copies back what the run
# wrote.
keep() {
	trap '' INT
	tee "$@"
}

# The case: kvbench's own plan of PROFILE_ARGS for CPUS ($1), which also
# rejects what it does not understand. Sets CASE_SECONDS; dies unless it is
# exactly one case.
CASE_SECONDS=0
check_case() {
	local cpus=$1 out rc=0 cases
	local -a a
	read -r -a a <<<"$ARGS"
	out=$("$KVB" bench --dry-run --cpus "$cpus" "${a[@]}" 2>&1) || rc=$?
	[[ $rc -eq 0 ]] || die "PROFILE_ARGS=\"$ARGS\": kvbench bench rejects it: $out"
	cases=$(sed -n 's/^kvbench: \([0-9]*\) cases\{0,1\} x .*/\1/p' <<<"$out")
	CASE_SECONDS=$(sed -n 's/^kvbench: .*, about \([0-9]*\) s$/\1/p' <<<"$out")
	[[ -n $cases && -n $CASE_SECONDS ]] ||
		die "PROFILE_ARGS=\"$ARGS\": no plan from kvbench bench --dry-run: $out"
	[[ $cases -eq 1 ]] ||
		die "PROFILE_ARGS=\"$ARGS\" is $cases cases: a profile is of one case (one backend, mix, thread count, batch size and fd mode; -b names no group)"
}

vm_timeout() { echo "${PROFILE_TIMEOUT:-$((CASE_SECONDS + VM_OVERHEAD))}"; }

# What the guest runs, as printed by the dry run and kept in meta.txt.
describe() {
	printf 'perf record -e cpu-clock -F %s -a -g -- kvbench bench %s\n' "$FREQ" "$ARGS"
}

# The guest's settings: the sampling frequency and the case's arguments.
write_conf() {
	local a line="set --"
	local -a args
	read -r -a args <<<"$ARGS"
	for a in "${args[@]}"; do
		line+=" $(shell_quote "$a")"
	done
	{
		echo "# Generated by tools/vm/profile.sh."
		echo "FREQ=$FREQ"
		echo "$line"
	} >"$1"
}

# The payload's driver: load the module, record, report while the module is
# still loaded (perf takes its symbols from /proc/kallsyms), unload.
write_driver() {
	cat >"$1" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/vm/profile.sh.
cd "$(dirname "$0")" || exit 1
KVBENCH_OUT=${KVBENCH_OUT:-$PWD/out}
KVBENCH_ACCEL=${KVBENCH_ACCEL:-unknown}
export KVBENCH_OUT KVBENCH_ACCEL
mkdir -p "$KVBENCH_OUT"
. ./profile.conf
data=/tmp/perf.data
log=$KVBENCH_OUT/perf.log
insmod ./kvbench.ko || exit 1
# Where perf looks for a module's file (it reads its build ID there).
rel=$(cat /proc/sys/kernel/osrelease)
mkdir -p "/lib/modules/$rel/extra"
cp kvbench.ko "/lib/modules/$rel/extra/"
rc=0
echo "== perf record -e cpu-clock -F $FREQ -a -g -- kvbench bench $*"
./perf record -e cpu-clock -F "$FREQ" -a -g -o "$data" -- \
	sh -c './kvbench bench --json "$KVBENCH_OUT/bench.json" "$@"; echo $? >/tmp/kvbench.rc' \
	sh "$@" || rc=$?
[ "$rc" -ne 0 ] || rc=$(cat /tmp/kvbench.rc 2>/dev/null || echo 1)
if [ -s "$data" ]; then
	echo "== perf report"
	# A copy of kallsyms with no kcore beside it: with /proc/kallsyms,
	# perf maps the whole kernel through /proc/kcore and counts the
	# module's functions as [kernel.kallsyms]; so they are [kvbench].
	cat /proc/kallsyms >/tmp/kallsyms
	./perf report -i "$data" --kallsyms /tmp/kallsyms --stdio --no-children \
		-g none --sort comm,dso,sym \
		>"$KVBENCH_OUT/perf-report.txt" 2>>"$log" || rc=1
	./perf report -i "$data" --kallsyms /tmp/kallsyms --stdio --no-children \
		-g none --sort dso >"$KVBENCH_OUT/perf-dso.txt" 2>>"$log" || rc=1
	./perf report -i "$data" --kallsyms /tmp/kallsyms --stdio --no-children \
		-g callee,0.5 --percent-limit 0.5 --sort dso,sym \
		>"$KVBENCH_OUT/perf-callgraph.txt" 2>>"$log" || rc=1
	# Collapsed stacks: a sample is its comm line, then one line per
	# frame, leaf first, then an empty line.
	./perf script -i "$data" --kallsyms /tmp/kallsyms -F comm,ip,sym \
		2>>"$log" | awk '
		function flush(  s, i) {
			if (comm == "")
				return
			s = comm
			for (i = n; i >= 1; i--)
				s = s ";" frame[i]
			count[s]++
			comm = ""
			n = 0
		}
		/^[^ \t]/ { flush(); comm = $0; sub(/[ \t]+$/, "", comm); next }
		/^[ \t]*$/ { flush(); next }
		{ sub(/^[ \t]*[0-9a-f]+ /, ""); gsub(/;/, ":"); frame[++n] = $0 }
		END { flush(); for (s in count) print s, count[s] }
	' >"$KVBENCH_OUT/perf.folded" || rc=1
	[ ! -s "$log" ] || echo "profile: perf said things, see perf.log" >&2
else
	echo "profile: perf record wrote no data" >&2
	rc=1
fi
rmmod kvbench
exit $rc
EOF
	chmod +x "$1"
}

# The top of the flat report: its header and first $2 symbol lines.
report_top() {
	awk -v n="$2" '/^#/ || /^$/ { if (!seen) print; next } { seen = 1; print; if (--n == 0) exit }' "$1"
}

main() {
	local payload=$WORK/payload kernel accel cpus stamp results perf status=0

	cpus=${SMP_:-$(nproc)}
	[[ ${PROFILE_DRY_RUN:-} == 1 ]] || "$VM" deps build profile
	quiet "tool" make -C "$REPO/tools/kvbench"
	check_case "$cpus"
	if [[ ${PROFILE_DRY_RUN:-} == 1 ]]; then
		printf 'profile: %s vCPUs: %s\n' "$cpus" "$(describe)"
		printf 'profile: one case, about %s s; the VM may run %s s\n' \
			"$CASE_SECONDS" "$(vm_timeout)"
		return 0
	fi

	step "setup (cached after the first run)"
	"$VM" setup
	kernel=$("$VM" kver)
	accel=$("$VM" accel)
	quiet "module ($kernel)" env KVER="$kernel" "$VM" kmake "$REPO" module

	perf=$(command -v perf) || die "no perf after kvbench-vm deps profile"
	mkdir -p "$payload"
	cp "$REPO/module/kvbench.ko" "$KVB" "$payload/"
	cp -L "$perf" "$payload/perf"
	write_conf "$payload/profile.conf"
	write_driver "$payload/run-profile.sh"

	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	results=$REPO/results/$stamp-$kernel-profile
	mkdir -p "$results"
	{
		echo "date: $(date -u '+%F %T UTC')"
		echo "kernel: $kernel"
		echo "mode: VM, $(nproc) host CPUs, $cpus vCPUs, $accel"
		echo "host: $(nproc) CPUs, $(uname -m)"
		echo "commit: $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "perf: $(perf --version) (linux-perf $(dpkg-query -W -f='${Version}' linux-perf 2>/dev/null || echo '?'))"
		echo "command: $(describe)"
	} >"$results/meta.txt"

	step "profile: $kernel ($cpus vCPUs, $accel); results in ${results#"$REPO"/}"
	KVER=$kernel "$VM" run --payload "$payload" --timeout "$(vm_timeout)" \
		--smp "$cpus" --out "$results" --snap-every 300 \
		--log "$results/console.log" -- KVBENCH_ACCEL="$accel" ./run-profile.sh |
		keep "$results/profile.txt" || status=$?
	if [[ -s $results/perf.folded ]]; then
		# Heaviest first (the count is the last field; a comm may hold spaces).
		awk '{ print $NF "\t" $0 }' "$results/perf.folded" | sort -k 1,1nr |
			cut -f 2- >"$WORK/folded"
		mv "$WORK/folded" "$results/perf.folded"
	fi
	if [[ -s $results/perf-report.txt ]]; then
		echo
		echo "== ${results#"$REPO"/}/perf-report.txt (top)"
		report_top "$results/perf-report.txt" 25
		echo "== also: perf-dso.txt (per shared object), perf-callgraph.txt (call chains),"
		echo "   perf.folded (collapsed stacks)"
	fi
	[[ $status -eq 0 ]] || echo "profile: failed with status $status (see $results)" >&2
	return "$status"
}

main "$@"
