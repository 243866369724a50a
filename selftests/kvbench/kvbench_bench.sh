#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark as a kselftest: a short `kvbench bench` over every kernel
# backend plus the NOP floor, each case reported as a KTAP test line with a
# diagnostic line before it that carries ops/s, ns/op, p99 and the ratio to
# NOP. A case passes when it ran and its numbers are sane (ops/s and ns/op
# finite and > 0, no failed operation, a p99 when 1,000 operations or more
# were timed and none below, a ratio to NOP); speed is never a pass/fail
# criterion. A case missing from the report fails, and a last test line
# checks the tool's exit status.
# Only busybox is needed besides the kvbench tool: awk reads the JSON report.
#
# Environment:
#   KVBENCH_CLI=<path>               the kvbench tool (default:
#                                    $KVBENCH_PAYLOAD/kvbench, ../kvbench,
#                                    ./kvbench, ../../tools/kvbench/kvbench,
#                                    then PATH)
#   KVBENCH_KO=<path>/kvbench.ko     insmod that file instead of "modprobe
#                                    kvbench" when the module is not loaded
#   KVBENCH_INSMOD=<program>         what loads KVBENCH_KO instead of insmod
#   KVBENCH_BENCH_DURATION=0.3s      timed part of each case
#   KVBENCH_BENCH_WARMUP=0.05s       untimed part before it
#   KVBENCH_BENCH_THREADS=1          thread counts (kvbench bench -t)
#   KVBENCH_BENCH_MIX=get            mixes (kvbench bench -m)
#   KVBENCH_BENCH_BACKENDS="rwlock rcu ..."  default: every backend the
#                                    module lists in sysfs (backends)
#   KVBENCH_BENCH_URING_QD=4         the io_uring smoke's queue depth
#   KVBENCH_BENCH_URING_DURATION=0.1s  its timed part per case
# Arguments are passed on to `kvbench bench` (both runs).
#
# Then an io_uring smoke: the same targets through io_uring (kvbench bench
# --io uring --qd 4), checked the same way, short. When the kernel or the
# module has no io_uring commands, the tool says so in one line and skips
# them: that is one skipped test line ("# SKIP" with the tool's reason),
# not a failure.
#
#   KSRC=<linux source tree>         where to find the kselftest framework's
#                                    ktap_helpers.sh when this script is not
#                                    in a kernel tree or a kselftest install
#                                    (default ~/.cache/kvbench/src/linux-source-6.12,
#                                    as the Makefile); KSFT_KTAP_HELPERS=<file>
#                                    names the file itself
#
# The KTAP lines come from the framework's ktap_helpers.sh.
#
# Exit status: 0 when every case passed, 1 when one failed (also when the
# module loads but /dev/kvbench does not appear: a failing test line); 4
# (KSFT_SKIP) when it cannot run here (not root, no module support, module,
# tool or kselftest framework not available), with a "1..0 # SKIP" line.

dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$dir/lib.sh"
tmp=

duration=${KVBENCH_BENCH_DURATION:-0.3s}
warmup=${KVBENCH_BENCH_WARMUP:-0.05s}
threads=${KVBENCH_BENCH_THREADS:-1}
mix=${KVBENCH_BENCH_MIX:-get}
uring_qd=${KVBENCH_BENCH_URING_QD:-4}
uring_duration=${KVBENCH_BENCH_URING_DURATION:-0.1s}

# In a kernel tree or a kselftest install the framework is beside us.
ktap=
for f in "${KSFT_KTAP_HELPERS:-}" "$dir/../kselftest/ktap_helpers.sh" \
	 "${KSRC:-$HOME/.cache/kvbench/src/linux-source-6.12}/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	if [ -n "$f" ] && [ -r "$f" ]; then
		ktap=$f
		break
	fi
done
if [ -z "$ktap" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP kvbench_bench.sh: the kselftest framework's ktap_helpers.sh was not found (set KSRC=<linux source tree> or KSFT_KTAP_HELPERS=<file>)"
	exit 4
fi
# shellcheck source=/dev/null # the kernel's, found above
. "$ktap"

ktap_print_header

skip()
{
	ktap_skip_all "kvbench_bench.sh: $*"
	exit "$ksft_skip"
}

# The run cannot start: one failing test line, and out.
fail_setup()
{
	ktap_set_plan 1
	ktap_print_msg "$2"
	ktap_test_fail "$1"
	ktap_finished
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	rc=$?
	if [ -n "$tmp" ]; then
		rm -rf "$tmp"
	fi
	kvb_finish "$rc" 1 "# rmmod kvbench failed"
}

kvb_traps cleanup

if [ "$(id -u)" -ne 0 ]; then
	skip "must be run as root"
fi

kvb=$(kvb_find_cli "$dir")
if [ -z "$kvb" ] || [ ! -f "$kvb" ] || [ ! -x "$kvb" ]; then
	skip "the kvbench tool was not found (set KVBENCH_CLI=<path>)"
fi

kvb_setup
case $? in
0) ;;
"$ksft_skip") skip "$kvb_why" ;;
*) fail_setup "/dev/kvbench appears" "$kvb_why" ;;
esac

backends=${KVBENCH_BENCH_BACKENDS:-$(kvb_backends)}
[ -n "$backends" ] ||
	fail_setup "the module's backends" "$kvb_sysdir/backends is missing or empty"

tmp=$(mktemp -d) || fail_setup "temporary directory" "mktemp -d failed"
list=nop
for b in $backends; do
	list=$list,$b
done

: >"$tmp/bench.json"
echo "# kvbench bench -b $list -t $threads -m $mix -D $duration -w $warmup -r 1${*:+ $*}"
"$kvb" bench -q -b "$list" -t "$threads" -m "$mix" -D "$duration" \
	-w "$warmup" -r 1 -f json -o "$tmp/bench.json" "$@" 2>"$tmp/bench.err"
st=$?
sed -e 's/^/# /' "$tmp/bench.err"
# The cases that did not run say why in the report.
grep -h '"why"' "$tmp/bench.json" | sed -e 's/^ */# not run: /'

: >"$tmp/uring.json"
echo "# kvbench bench -b $list -t $threads -m $mix -D $uring_duration -w $warmup -r 1 --io uring --qd $uring_qd${*:+ $*}"
"$kvb" bench -q -b "$list" -t "$threads" -m "$mix" -D "$uring_duration" \
	-w "$warmup" -r 1 --io uring --qd "$uring_qd" -f json -o "$tmp/uring.json" \
	"$@" 2>"$tmp/uring.err"
ust=$?
sed -e 's/^/# /' "$tmp/uring.err"
grep -h '"why"' "$tmp/uring.json" | sed -e 's/^ */# not run: /'

# check_report JSON EXPECTED STATUS WHAT: one test per result in the
# report, with a diagnostic line before it. Then one failing test per case
# the report lacks: a target of EXPECTED with no result at all, or without
# a mix/threads/batch/fd combination that another target has. Last, a test
# of the tool's exit status (WHAT names the run). awk writes one record per
# test (ok or fail, name, diagnostics; tab-separated), ktap_helpers.sh the
# KTAP.
check_report()
{
awk -v expected="$2" -v st="$3" -v what="$4" '
function val(line, key,    s) {
	s = line
	if (!sub(".*\"" key "\": *", "", s))
		return ""
	sub(/[,} ].*/, "", s)
	gsub(/"/, "", s)
	return s
}
function num(s) {
	return s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/
}
function pos(s) {
	return num(s) && s + 0 > 0
}
function class(b) {
	return b ~ /^nop(\/|$)/ ? "nop" : "kernel"
}
function add(line, d) {
	n++
	res[n] = line
	diag[n] = d
}
/"backend":/ {
	backend = val($0, "backend"); m = ""; t = ""; b = ""; fd = ""; ops = ""
	ns = ""; errs = ""; samples = ""; p99 = ""; ratio = ""
}
/"mix":/ { m = val($0, "name") }
/"threads":/ { t = val($0, "threads") }
/"batch":/ { b = val($0, "batch") }
/"fd":/ { fd = val($0, "fd") }
/"ops_per_sec":/ { ops = val($0, "ops_per_sec") }
/"ns_per_op":/ { ns = val($0, "ns_per_op") }
/"errors":/ { errs = val($0, "errors") }
/"samples":/ { samples = val($0, "samples") }
/"p99":/ { p99 = val($0, "p99") }
/"cost_vs_nop":/ { ratio = val($0, "cost_vs_nop") }
/"interrupted":/ && backend != "" {
	intr = val($0, "interrupted")
	combo = (m == "nop" || m == "" ? "" : " " m) " threads=" t
	if (b != "" && b != 1)
		combo = combo " batch=" b
	if (fd != "" && fd != "per-thread")
		combo = combo " fd=" fd
	name = backend combo
	combos[class(backend), combo] = 1
	have[backend, combo] = 1
	why = ""
	if (!pos(ops))
		why = why ", ops/s is " ops
	if (!pos(ns))
		why = why ", ns/op is " ns
	if (errs != "0")
		why = why ", " errs " operations failed"
	# p99 is a number from 1,000 timed operations on, null below
	if (samples + 0 >= 1000 ? !pos(p99) : p99 != "null" && samples != "")
		why = why ", p99 is " p99 " from " samples " samples"
	if (!pos(ratio))
		why = why ", ratio to NOP is " ratio
	if (intr != "false")
		why = why ", interrupted"
	d = sprintf("%s: %s ops/s, %s ns/op, p99 %s, %sx NOP", name,
		ops, ns, pos(p99) ? p99 " ns" : "n/a", ratio)
	if (why == "")
		add("ok\t" name, d)
	else
		add("fail\t" name, d "\t" name ": " substr(why, 3))
	seen[backend] = 1
	backend = ""
}
END {
	split(expected, want, " ")
	for (i = 1; i in want; i++) {
		w = want[i]
		if (!(w in seen)) {
			add("fail\t" w, w ": no result in the report")
			continue
		}
		for (k in combos) {
			split(k, part, SUBSEP)
			if (part[1] == class(w) && !((w, part[2]) in have))
				add("fail\t" w part[2], w part[2] ": no result in the report")
		}
	}
	if (st == 0)
		add("ok\t" what " exit status", what " exited 0")
	else
		add("fail\t" what " exit status",
		    what " exited with status " st)
	for (i = 1; i <= n; i++)
		print res[i] "\t" diag[i]
}' "$1"
}

check_report "$tmp/bench.json" "nop $backends" "$st" "kvbench bench" >"$tmp/tests"
# The io_uring smoke: skipped as a whole when the tool skipped its targets.
uring_skip=$(grep -m 1 '^kvbench: io_uring: .* are skipped$' "$tmp/uring.err")
if [ -n "$uring_skip" ] && [ "$ust" -eq 0 ]; then
	printf 'skip\tio_uring smoke (--io uring --qd %s)\t%s\n' "$uring_qd" \
		"${uring_skip#kvbench: }" >>"$tmp/tests"
else
	uring_list=
	for b in nop $backends; do
		uring_list="$uring_list $b/uring-qd$uring_qd"
	done
	check_report "$tmp/uring.json" "${uring_list# }" "$ust" \
		"kvbench bench --io uring" >>"$tmp/tests"
fi

ktap_set_plan "$(($(wc -l <"$tmp/tests")))"
tab=$(printf '\t')
while IFS=$tab read -r result name diag why; do
	ktap_print_msg "$diag"
	if [ -n "$why" ]; then
		ktap_print_msg "$why"
	fi
	if [ "$result" = ok ]; then
		ktap_test_pass "$name"
	elif [ "$result" = skip ]; then
		ktap_test_skip "$name"
	else
		ktap_test_fail "$name"
	fi
done <"$tmp/tests"
ktap_finished
