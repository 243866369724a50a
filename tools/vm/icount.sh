#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# icount.sh - `make icount` and `make icount-check`: instructions per
# operation, which the host's load cannot move.
#
# It boots the guest kernel under QEMU's deterministic execution
# (kvbench-vm run --icount: single-threaded TCG, -icount shift=0,sleep=off),
# where the guest's clock advances one nanosecond per instruction the
# guest executes. `kvbench bench`'s ns/op is then the guest's instructions
# per operation: the tool's loop, the system call and the module's path,
# every instruction counted as one. What the figure is: a path length. What
# it is not: a time. It has no caches, no TLB, no branch predictor, no
# memory latency, no contention and no parallelism (one vCPU); a cheap and
# a costly instruction count the same, QEMU counts each iteration of a
# rep-prefixed string instruction (the kernel's copies) as one, and
# interrupts that fall into a run (the timer's, RCU's callbacks) count
# with it. It moves when code moves: the kernel's, the module's or the
# tool's loop.
#
# Every case is one thread, a fixed number of operations (-n), a fixed seed,
# no latency sampling (its clock reads would count), one run, on a guest
# of one vCPU: with two, QEMU's round robin between them, which the host's
# events can move, decides what the other vCPU (an RCU callback, an owner
# thread's polling) adds to a case; with one, everything the guest does
# for an operation is counted, hand-offs to owner threads included, and
# nothing else is. Two boots of one commit on a loaded host agreed within
# 1% on 189 of 191 cases, within 0.1% on every GET, DEL and NOP
# (Documentation/results.rst, Documentation/results/icount.txt).
#
#   icount.sh           the study (make icount): every backend, the NOP
#                       ioctl, the user-rwlock baseline and the bpf-htab
#                       peer; GET, SET, DEL, BATCH(64), MGET(64) and
#                       io_uring at queue depth 1 and 64; at the seed's
#                       record (16 B keys, 64 B values, 1024 keys) and at
#                       YCSB's (24 B keys, 1000 B values, 1000 keys); and
#                       the rcu GET at other key and value sizes. Results
#                       under results/<UTC time>-icount/: icount.txt (the
#                       table), icount.json, the tool's CSVs, guest.txt
#                       (what the guest printed), console.log, meta.txt
#   icount.sh check     the guard (make icount-check): NOP, and GET and
#                       SET of rcu and rwlock, at the seed's record, each
#                       against the record in tools/vm/icount-baseline.txt;
#                       fails when one grew by more than ICOUNT_MARGIN
#                       percent. Results under results/<time>-icount-check/
#   icount.sh update    the guard's cases, written as the new record into
#                       tools/vm/icount-baseline.txt (commit it, saying why
#                       the figures moved)
#   icount.sh table DIR the table of a study already made, again
#   icount.sh check DIR, icount.sh update DIR
#                       the same from the guard's cases of a run already
#                       made (results/<time>-icount/ or -icount-check/):
#                       no VM
#
# Environment:
#   ICOUNT_MARGIN    percent a figure may grow over the record (default 3)
#   ICOUNT_BASELINE  the record (default tools/vm/icount-baseline.txt)
#   ICOUNT_OPS       operations per case (default 200000; a BATCH or MGET
#                    case runs them in calls of 64)
#   ICOUNT_DRY_RUN   1: print the cases and stop (no setup, no VM)
#   NATIVE           ignored: the counts come from the VM, always
#   KVER             the guest kernel (default: the newest Debian 6.12);
#                    the record is of the default kernel

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly VM=$REPO/tools/vm/kvbench-vm
readonly KVB=$REPO/tools/kvbench/kvbench
readonly MARGIN=${ICOUNT_MARGIN:-3}
readonly BASELINE=${ICOUNT_BASELINE:-$REPO/tools/vm/icount-baseline.txt}
readonly OPS=${ICOUNT_OPS:-200000}
readonly MODE=${1:-study}
readonly FROM=${2:-}
# Seconds the VM may run: the boot and the study (about 200 s in the VM
# here), with room for a loaded host.
readonly VM_TIMEOUT=900

# What every case shares: one thread on CPU 0, a fixed seed and count, a
# short warm-up (20 million instructions) so that first touches fall
# outside the count, no latency sampling, one run. Not -q: the progress
# lines keep kvbench-vm's stall watchdog content.
readonly COMMON="-t 1 -n $OPS -w 20ms -r 1 --seed 1 --sample-every 0"
readonly SEED_REC="-k 1024 --key-size 16 --value-size 64"
readonly YCSB_REC="-k 1000 --key-size 24 --value-size 1000"

# user-owner is left out: its caller and owner threads poll each other
# for up to --owner-spin microseconds, which under -icount is that many
# thousand instructions by definition, and its figure (some 119,000 per
# GET) would measure the spin, not a path.
# The cases, one kvbench bench run each: "group|record|arguments". The
# guard's come first in the study too, so that a study's run is also a
# run of the guard, made the same way.
readonly -a GUARD=(
	"guard|16/64|$SEED_REC -b nop,rcu,rwlock -m get,set"
)
readonly -a STUDY=(
	"${GUARD[@]}"
	"seed|16/64|$SEED_REC -b nop,kernel,user-rwlock,bpf-htab -m get,set,del --batch 1,64 --multi 64"
	"seed-uring|16/64|$SEED_REC -b nop,kernel -m get,set --io uring --qd 1,64"
	"ycsb|24/1000|$YCSB_REC -b nop,kernel,user-rwlock,bpf-htab -m get,set,del --batch 1,64 --multi 64"
	"ycsb-uring|24/1000|$YCSB_REC -b nop,kernel -m get,set --io uring --qd 1,64"
	"key-8|8/64|-k 1024 --key-size 8 --value-size 64 -b rcu -m get"
	"key-64|64/64|-k 1024 --key-size 64 --value-size 64 -b rcu -m get"
	"key-250|250/64|-k 1024 --key-size 250 --value-size 64 -b rcu -m get"
	"value-8|16/8|-k 1024 --key-size 16 --value-size 8 -b rcu -m get"
	"value-1000|16/1000|-k 1024 --key-size 16 --value-size 1000 -b rcu -m get"
	"value-4000|16/4000|-k 1024 --key-size 16 --value-size 4000 -b rcu -m get"
)

step() { printf '==> %s\n' "$*" >&2; }
die() { printf 'icount: %s\n' "$*" >&2; exit 1; }

case $MODE in
study | check | update | table) ;;
-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) die "unknown mode '$MODE' (study, check or update)" ;;
esac
[[ $MARGIN =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "ICOUNT_MARGIN=$MARGIN: not a percentage"
[[ $OPS =~ ^[1-9][0-9]*$ ]] || die "ICOUNT_OPS=$OPS: not a number of operations"
[[ -z $FROM || ($MODE != study && -r $FROM/guard.csv) ]] ||
	die "$FROM: not the results of a run with the guard's cases (no guard.csv), or mode study"
[[ $MODE != table || -n $FROM ]] || die "table: which run? (icount.sh table results/<time>-icount)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-icount.XXXXXX")
readonly WORK
trap 'rm -rf "$WORK"' EXIT

# quiet NAME CMD...: run a build step, showing its output only on failure.
quiet() {
	local name=$1
	shift
	step "build: $name"
	if ! "$@" >"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log" >&2
		die "building $name failed"
	fi
}

# Quote $1 for a POSIX shell (the guest's sh).
shell_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# write_plan FILE CASE...: one line per case for the driver,
# "run GROUP RECORD ARGS...".
write_plan() {
	local file=$1 entry group rec args a line
	local -a words
	shift
	echo "# Generated by tools/vm/icount.sh." >"$file"
	for entry; do
		IFS='|' read -r group rec args <<<"$entry"
		line="run $(shell_quote "$group") $(shell_quote "$rec")"
		read -r -a words <<<"$COMMON $args"
		for a in "${words[@]}"; do
			line+=" $(shell_quote "$a")"
		done
		echo "$line" >>"$file"
	done
}

# The payload's driver: load the module, run the plan, one CSV per group,
# printed on the console at the end between <icount-csv GROUP> and
# </icount-csv> lines. Not kvbench-vm run --out: its snapshots of /out
# (a find every 2 s, a tar when /out changes) would run beside the cases
# and add their instructions to the guest's clock.
write_driver() {
	cat >"$1" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/vm/icount.sh.
cd "$(dirname "$0")" || exit 1
out=/tmp/icount
mkdir -p "$out"
rc=0
# run GROUP RECORD ARGS...: one kvbench bench, its CSV as GROUP.csv.
run() {
	group=$1 rec=$2
	shift 2
	echo "== $group (key/value $rec B): kvbench bench $*"
	./kvbench bench -f csv -o "$out/$group.csv" "$@" || rc=1
}
insmod ./kvbench.ko || exit 1
# The first case after the boot counted twice the NOP's instructions
# (1471 against 733 per op): the kernel's work after a boot runs beside
# it on the one vCPU. An idle second and a run thrown away let it finish.
sleep 1
./kvbench bench -q -b nop -t 1 -n 1000000 -w 0 -r 1 --sample-every 0 -f csv >/dev/null
. ./plan.sh
rmmod kvbench
for f in "$out"/*.csv; do
	[ -e "$f" ] || continue
	g=${f##*/}
	echo "<icount-csv ${g%.csv}>"
	cat "$f"
	echo "</icount-csv>"
done
exit $rc
EOF
	chmod +x "$1"
}

# tabulate RESULTS GROUP...: the table (stdout) and icount.json from the
# groups' CSVs: one line per case, instructions per operation.
tabulate() {
	local results=$1
	shift
	python3 - "$results" "$@" <<'EOF'
import csv, json, os, sys

results, groups = sys.argv[1], sys.argv[2:]
rows = []
for entry in groups:
    group, rec = entry.split('|')[:2]
    path = os.path.join(results, group + '.csv')
    if not os.path.exists(path):
        print('icount: no results for %s' % group, file=sys.stderr)
        continue
    with open(path) as f:
        for r in csv.DictReader(f):
            if r.get('backend') == 'backend':
                continue
            io, qd = r.get('io') or 'ioctl', r.get('qd') or ''
            if io == 'uring':
                call = 'uring-qd' + qd
            elif r.get('multi') not in ('', '0', None):
                call = 'M' + r['batch']
            else:
                call = 'batch' + r['batch']
            name = '%s %s %s' % (r['backend'].split('/')[0], r['mix'], call)
            ops = int(float(r['ops'])) if r.get('ops') else 0
            rows.append({'case': name, 'record': rec, 'group': group,
                         'backend': r['backend'], 'mix': r['mix'],
                         'call': call,
                         'instructions_per_op': float(r['ns_per_op']),
                         'ops': ops,
                         'misses': int(float(r['misses'] or 0))})
nop = {}
for r in rows:
    if r['backend'] == 'nop':
        nop[r['record']] = r['instructions_per_op']
print('%-28s %-8s %12s %8s %8s' % ('case', 'key/val', 'instr/op', 'x nop',
                                  'misses'))
for r in rows:
    base = nop.get(r['record'])
    ratio = '%.2f' % (r['instructions_per_op'] / base) if base else '-'
    print('%-28s %-8s %12.1f %8s %8d' % (r['case'], r['record'],
                                         r['instructions_per_op'], ratio,
                                         r['misses']))
with open(os.path.join(results, 'icount.json'), 'w') as f:
    json.dump({'unit': 'guest instructions per operation (QEMU -icount '
                       'shift=0: ns/op of kvbench bench)',
               'cases': rows}, f, indent=1)
    f.write('\n')
EOF
}

# compare TABLE: each case of the record against TABLE (the guard's
# table), as TAP (make check-long counts it); exit 1 when one grew by more
# than MARGIN percent or was not measured.
compare() {
	[[ -r $BASELINE ]] || die "no record: $BASELINE (make icount-update writes one)"
	awk -v margin="$MARGIN" -v kver="$KVER_" -v base="${BASELINE#"$REPO"/}" '
		FNR == NR {
			if ($0 ~ /^# kernel /)
				rec_kver = $3
			if ($0 ~ /^#/ || NF < 4)
				next
			name = $1 " " $2 " " $3
			want[name] = $4
			order[++n] = name
			next
		}
		$1 != "case" && $4 == "16/64" && !(($1 " " $2 " " $3) in got) { got[$1 " " $2 " " $3] = $5 }
		END {
			if (rec_kver != kver)
				printf "# the record is of kernel %s, this run of %s: a new kernel moves the kernel part of every figure\n", rec_kver, kver
			printf "1..%d\n", n
			for (i = 1; i <= n; i++) {
				c = order[i]
				if (!(c in got)) {
					printf "not ok %d - %s: not measured (record %.1f)\n", i, c, want[c]
					bad++
					continue
				}
				d = 100 * (got[c] - want[c]) / want[c]
				line = sprintf("%s: %.1f instructions/op, record %.1f, %+.2f%%", c, got[c], want[c], d)
				if (d > margin) {
					printf "not ok %d - %s: grew by more than %s%%\n", i, line, margin
					bad++
				} else if (d < -margin) {
					printf "ok %d - %s: shorter by more than %s%%, update the record (make icount-update)\n", i, line, margin
				} else {
					printf "ok %d - %s\n", i, line
				}
			}
			if (bad) {
				printf "# icount-check: %d of %d cases FAILED against %s (margin %s%%)\n", bad, n, base, margin
				exit 1
			}
			printf "# icount-check: %d cases within %s%% of %s\n", n, margin, base
		}
	' "$BASELINE" "$1"
}

# judge TABLE: what check and update do with the guard's table.
judge() {
	local status=0
	case $MODE in
	check)
		echo
		echo "== against ${BASELINE#"$REPO"/}"
		compare "$1" || status=$?
		return "$status" ;;
	update) write_record "$1" ;;
	esac
}

# write_record TABLE: the guard's table as the new record.
write_record() {
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "# The record of make icount-check (tools/vm/icount.sh): guest"
		echo "# instructions per operation under QEMU -icount shift=0, one thread,"
		echo "# $OPS operations, the seed's record (16 B keys, 64 B values, 1024 keys)."
		echo "# The check fails when a case grows by more than ICOUNT_MARGIN (3) percent."
		echo "# Rewritten by make icount-update; commit it saying why the figures moved."
		echo "# kernel $KVER_"
		echo "# run $RUN_"
		echo "# backend mix call instructions/op"
		awk '$1 != "case" && $4 == "16/64" && ($1 == "nop" || $1 == "rcu" || $1 == "rwlock") && $3 == "batch1" && $2 ~ /^(nop|get|set)$/ {
			printf "%-8s %-4s %-7s %8.1f\n", $1, $2, $3, $5
		}' "$1"
	} >"$WORK/record"
	mv "$WORK/record" "$BASELINE"
	echo "icount: wrote ${BASELINE#"$REPO"/}:"
	cat "$BASELINE"
}

KVER_=
RUN_=
main() {
	local payload=$WORK/payload accel stamp results status=0 t0 suffix
	local -a cases
	if [[ $MODE == study ]]; then
		cases=("${STUDY[@]}")
		suffix=icount
	else
		cases=("${GUARD[@]}")
		suffix=icount-check
	fi
	if [[ $MODE == table ]]; then
		tabulate "$FROM" "${STUDY[@]}" | tee "$FROM/icount.txt"
		return
	fi
	if [[ -n $FROM ]]; then
		KVER_=$(sed -n 's/^kernel: //p' "$FROM/meta.txt" 2>/dev/null)
		RUN_=$(sed -n 's/^commit: //p' "$FROM/meta.txt" 2>/dev/null)
		RUN_="${FROM#"$REPO"/}, commit $RUN_"
		tabulate "$FROM" "${GUARD[@]}" >"$WORK/guard.txt"
		cat "$WORK/guard.txt"
		judge "$WORK/guard.txt"
		return
	fi
	if [[ ${ICOUNT_DRY_RUN:-} == 1 ]]; then
		write_plan "$WORK/plan.sh" "${cases[@]}"
		grep -v '^#' "$WORK/plan.sh"
		return 0
	fi

	"$VM" deps build
	quiet "tool" make -C "$REPO/tools/kvbench"
	step "setup (cached after the first run)"
	"$VM" setup
	KVER_=$("$VM" kver)
	accel=$("$VM" accel)
	[[ $accel == tcg ]] || step "the accelerator is $accel; icount runs under TCG all the same"
	quiet "module ($KVER_)" env KVER="$KVER_" "$VM" kmake "$REPO" module

	mkdir -p "$payload"
	cp "$REPO/module/kvbench.ko" "$KVB" "$payload/"
	write_driver "$payload/run-icount.sh"
	write_plan "$payload/plan.sh" "${cases[@]}"

	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	results=$REPO/results/$stamp-$suffix
	mkdir -p "$results"
	{
		echo "date: $(date -u '+%F %T UTC')"
		echo "kernel: $KVER_"
		echo "mode: VM, QEMU -accel tcg,thread=single -icount shift=0,sleep=off, 1 vCPU"
		echo "host: $(nproc) CPUs, $(uname -m)"
		echo "commit: $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "common: $COMMON"
	} >"$results/meta.txt"

	step "icount ($MODE): $KVER_; results in ${results#"$REPO"/}"
	t0=$(date +%s)
	KVER=$KVER_ "$VM" run --icount --smp 1 --payload "$payload" --timeout "$VM_TIMEOUT" \
		--log "$results/console.log" -- ./run-icount.sh | tee "$results/guest.txt" ||
		status=$?
	echo "vm: $(($(date +%s) - t0)) s" >>"$results/meta.txt"
	# The CSVs, from the console.
	awk -v dir="$results" '
		{ sub(/\r$/, "") }
		/^<icount-csv [a-z0-9-]+>$/ { f = dir "/" substr($2, 1, length($2) - 1) ".csv"; next }
		/^<\/icount-csv>$/ { close(f); f = ""; next }
		f != "" { print > f }
	' "$results/console.log"
	[[ $status -eq 0 ]] || die "the guest run failed with status $status (see $results)"
	tabulate "$results" "${cases[@]}" >"$results/icount.txt"
	echo
	echo "== instructions per operation (${results#"$REPO"/}/icount.txt)"
	cat "$results/icount.txt"
	RUN_="${results#"$REPO"/}, commit $(sed -n 's/^commit: //p' "$results/meta.txt")"
	[[ $MODE == study ]] || judge "$results/icount.txt" | tee "$results/$MODE.txt" || status=$?
	echo "icount: $MODE took $(($(date +%s) - t0)) s in the VM"
	return "$status"
}

main "$@"
