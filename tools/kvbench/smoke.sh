#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the kvbench tool against the real module, meant for the VM
# (busybox sh is enough): the CLI round trip, then a short `kvbench bench`
# over every backend and baseline at 1 and 2 threads whose JSON report must
# be well-formed, complete and error-free. Prints TAP.
#
# Argument: [DIR]  where kvbench and kvbench-test are (default: this
#                  script's directory); the module is $KVBENCH_KO or
#                  DIR/kvbench.ko, loaded when /dev/kvbench is absent (with
#                  $KVBENCH_INSMOD if set, else insmod).
# Exit: 0 all passed, 1 a test failed, 4 cannot run here (kselftest skip).

dir=${1:-$(cd "$(dirname "$0")" && pwd)}
kvb=$dir/kvbench
KSFT_SKIP=4
n=0
skipped=0
fail=0

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP kvbench smoke: needs root"
	exit $KSFT_SKIP
fi
loaded=
if [ ! -e /dev/kvbench ]; then
	ko=${KVBENCH_KO:-$dir/kvbench.ko}
	if [ ! -f "$ko" ] || ! ${KVBENCH_INSMOD:-insmod} "$ko"; then
		echo "1..0 # SKIP kvbench smoke: no module (looked for $ko)"
		exit $KSFT_SKIP
	fi
	loaded=1
fi
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
	[ -n "$loaded" ] && rmmod kvbench
}
trap cleanup EXIT

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}

"$kvb" set smoke-key smoke-value
ok $? "kvbench set"
[ "$("$kvb" get smoke-key)" = smoke-value ]
ok $? "kvbench get prints the value"
[ "$("$kvb" --buffer-size 2 get smoke-key)" = smoke-value ]
ok $? "kvbench get retries with a larger buffer on ERANGE"
"$kvb" del smoke-key
ok $? "kvbench del"
"$kvb" get smoke-key 2>"$tmp/err"
st=$?
[ $st = 1 ] && grep -q "get 'smoke-key': no such key" "$tmp/err"
ok $? "kvbench get of a deleted key: exit 1, names the key"
"$kvb" nop
ok $? "kvbench nop"

# -b names are checked against the module's own list, at once
backends=$(cat /sys/class/misc/kvbench/backends)
"$kvb" bench -b rwlcok -n 1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q "did you mean 'rwlock'" "$tmp/err" &&
	grep -qF "the module offers $backends;" "$tmp/err"
ok $? "kvbench bench -b rwlcok: exit 2 before any run, the module's backends named"
"$kvb" -d /dev/kvbench get --help | grep -q "Usage: kvbench \[-d DEVICE\] get"
ok $? "kvbench get --help: the usage, no lookup"

before=$(cat /sys/class/misc/kvbench/backend)
"$kvb" bench -q -b all -t 1-2 -m get,90:10 --batch 1,8 -n 200 -w 0 -r 1 \
	-f json -o "$tmp/smoke.json" 2>"$tmp/bench.err"
st=$?
[ $st = 0 ] || cat "$tmp/bench.err" >&2
ok $st "kvbench bench over all backends, baselines and bpf-htab, 1 and 2 threads"
"$dir/kvbench-test" --check-json "$tmp/smoke.json" >/dev/null
ok $? "its JSON report is well-formed"
# nop: 2; 6 kernel backends x 2 mixes x 2 batch sizes x 2 threads;
# bpf-htab x 2 x 2 x 2, where the kernel has bpf(2) (the debug kernel has
# not: the tool skips it, said on stderr); 2 baselines x 2 mixes x 2 threads
# (counted by "lat_per_op_ns", a key of results only: "kind" is in the
# verdict too, "backend" a module parameter)
cases=66
nobpf=
if grep -q "bpf-htab: skipped: this kernel has no bpf(2)" "$tmp/bench.err"; then
	cases=58
	nobpf=1
fi
[ "$(grep -c '"lat_per_op_ns":' "$tmp/smoke.json")" = $cases ]
ok $? "it has the $cases expected cases"
ver=$("$kvb" --version)
ver=${ver#kvbench }
ver=${ver%% *}
grep -q "\"module_version\": \"$ver\"" "$tmp/smoke.json" &&
	grep -q '"backend_stats": { "reset": true' "$tmp/smoke.json"
ok $? "it names the module's version ($ver) and has the backends' statistics"
[ "$(grep -c '"errors": 0,' "$tmp/smoke.json")" = $cases ]
ok $? "no operation failed"
if [ -n "$nobpf" ]; then
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n - bpf-htab ran beside the kernel backends # SKIP this kernel has no bpf(2)"
else
	[ "$(grep -c '"backend": "bpf-htab"' "$tmp/smoke.json")" = 8 ]
	ok $? "bpf-htab ran beside the kernel backends"
fi
[ "$(cat /sys/class/misc/kvbench/backend)" = "$before" ]
ok $? "the module's backend is restored ($before)"
grep -q '"order": "shuffled"' "$tmp/smoke.json" && grep -q '"settle": true' "$tmp/smoke.json"
ok $? "by default the runs go in shuffled rounds, each settled first"

# Both orders over two backends and two mixes, two runs per case: every
# case has its two runs, in rounds 0 and 1, whichever the order; the
# shuffled run names each run's round as it goes.
for order in sequential shuffled; do
	"$kvb" bench -b rwlock,rcu -t 1 -m get,set -n 200 -w 0 -r 2 --seed 5 \
		--order $order -f json -o "$tmp/$order.json" 2>"$tmp/$order.err"
	st=$?
	[ $st = 0 ] || cat "$tmp/$order.err" >&2
	[ $st = 0 ] && grep -q "\"order\": \"$order\"" "$tmp/$order.json" &&
		grep -q '"settle": true' "$tmp/$order.json" &&
		[ "$(grep -c '"rounds": \[0, 1\]' "$tmp/$order.json")" = 4 ] &&
		[ "$(grep -c '^      "runs": 2,' "$tmp/$order.json")" = 4 ]
	ok $? "kvbench bench --order $order: 4 cases of 2 runs, rounds 0 and 1, settled"
done
[ "$(grep -c '^kvbench: \[round [12]/2, [1-4]/4\] ' "$tmp/shuffled.err")" = 8 ] &&
	! grep -q '\[round ' "$tmp/sequential.err"
ok $? "progress: a line per run and its round when shuffled, per case when sequential"
"$kvb" bench -q -b rcu -t 1 -m set -n 200 -w 0 -r 1 --no-settle -f json \
	-o "$tmp/nosettle.json" 2>/dev/null &&
	grep -q '"settle": false' "$tmp/nosettle.json" &&
	echo 1 >/sys/class/misc/kvbench/settle &&
	[ "$(cat /sys/class/misc/kvbench/pending_frees)" = 0 ]
ok $? "kvbench bench --no-settle: said in the report; a settle after it frees every item"
# --after set: 200 SETs before the timed GETs, besides the pre-fill's 1024
# (the counters are reset before each run)
"$kvb" bench -q -b rcu -t 1 -m get -n 200 -w 0 -r 1 --after set -f json \
	-o "$tmp/after.json" 2>/dev/null &&
	grep -q '"after": "set"' "$tmp/after.json" &&
	[ "$(cat /sys/class/misc/kvbench/sets)" = 1224 ]
ok $? "kvbench bench --after set: a run of SETs before the timed run ($(cat /sys/class/misc/kvbench/sets) sets)"

echo "1..$n"
echo "# Totals: pass:$((n - fail - skipped)) fail:$fail xfail:0 xpass:0 skip:$skipped error:0"
[ $fail = 0 ]
