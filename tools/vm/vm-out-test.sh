#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-out-test.sh - what `kvbench-vm run --out DIR` gives back, in three
# boots of the stock guest kernel (KTAP, about 50 s under TCG):
#   - a command that ends: DIR holds /out as it was at the end (the final
#     out section; a file written and removed in between stays out);
#   - a VM killed by --timeout: exit 124, and DIR holds the last snapshot
#     the guest took while the command ran;
#   - kvbench-vm itself getting TERM: it kills the VM (nothing of the run
#     is left behind), exits 143, and DIR holds the last snapshot.

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly VM=$REPO/tools/vm/kvbench-vm
W=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-vm-out-test.XXXXXX")
readonly W
n=0 failed=0

# What this test's kvbench-vm runs left running, as "PID COMMAND LINE"
# (their arguments name $W: --out, and QEMU's files in kvbench-vm's
# temporary directory).
our_procs() {
	local p args
	for p in /proc/[0-9]*; do
		args=()
		mapfile -d '' args <"$p/cmdline" 2>/dev/null
		[[ ${#args[@]} -gt 0 && "${args[*]}" == *"$W/"* ]] || continue
		args=("${args[@]//$'\n'/ }")
		printf '%s %s\n' "${p#/proc/}" "${args[*]}"
	done
	return 0
}

# Nothing may outlive the test: a stray would also keep the caller's open
# files (a lock, a pipe).
cleanup() {
	local p rest
	while read -r p rest; do
		kill -KILL "$p" 2>/dev/null
	done < <(our_procs)
	rm -rf "$W"
}
trap cleanup EXIT

ok() {
	n=$((n + 1))
	if [[ $1 -eq 0 ]]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# vm NAME ARGS...: kvbench-vm run ARGS, its stdout and stderr kept in
# $W/NAME.out and $W/NAME.err (and shown as "# " lines); sets st.
vm() {
	local name=$1
	shift
	TMPDIR=$W "$VM" run "$@" >"$W/$name.out" 2>"$W/$name.err"
	st=$?
	sed "s/^/# $name: /" "$W/$name.out" "$W/$name.err"
}

# has DIR FILE TEXT: DIR/FILE holds the line TEXT, else say what it holds.
has() {
	[[ -f $1/$2 && $(cat "$1/$2") == "$3" ]] && return 0
	echo "# $1/$2: expected \"$3\", found: $(cat "$1/$2" 2>&1)"
	return 1
}

# The files under directory $1, relative, on one line.
files() {
	local -a f
	mapfile -t f < <(cd "$1" && find . -type f | LC_ALL=C sort)
	echo "${f[*]}"
}

echo "TAP version 13"
echo "1..4"

# shellcheck disable=SC2016 # expanded in the guest
vm end --out "$W/end" --timeout 120 -- \
	'echo one >$KVBENCH_OUT/a; echo gone >$KVBENCH_OUT/gone; sleep 3;' \
	'rm $KVBENCH_OUT/gone; mkdir $KVBENCH_OUT/d; echo two >$KVBENCH_OUT/d/b; exit 3'
r=0
[[ $st -eq 3 ]] || { echo "# exit status $st, expected 3"; r=1; }
has "$W/end" a one || r=1
has "$W/end" d/b two || r=1
[[ $(files "$W/end") == "./a ./d/b" ]] || { echo "# files: $(files "$W/end")"; r=1; }
! grep -q snapshot "$W/end.err" || { echo "# a snapshot was used"; r=1; }
ok $r "run --out, command ends (status 3): DIR holds /out as it was at the end"

# --stall 0 here and below: a silent command is no stall, whatever
# KVBENCH_STALL_TIMEOUT says.
# shellcheck disable=SC2016 # expanded in the guest
vm timeout --out "$W/timeout" --timeout 25 --stall 0 -- \
	'echo one >$KVBENCH_OUT/a; sleep 6; echo two >$KVBENCH_OUT/b; sleep 600'
r=0
[[ $st -eq 124 ]] || { echo "# exit status $st, expected 124"; r=1; }
has "$W/timeout" a one || r=1
has "$W/timeout" b two || r=1
grep -q 'copied back its last snapshot' "$W/timeout.err" ||
	{ echo "# stderr does not say that the last snapshot was copied back"; r=1; }
ok $r "run --out --timeout 25, command still running: exit 124, DIR holds the last snapshot"

# --snap-every 15: snapshot N comes at about N x 15 s into the command
# (every 2 s, the default, it would be about N x 2 s), whatever the boot
# took of the 34 s; what was written before it is in it.
# shellcheck disable=SC2016 # expanded in the guest
vm every --out "$W/every" --timeout 34 --stall 0 --snap-every 15 -- \
	'echo one >$KVBENCH_OUT/a; sleep 3; echo two >$KVBENCH_OUT/b; sleep 600'
r=0
[[ $st -eq 124 ]] || { echo "# exit status $st, expected 124"; r=1; }
has "$W/every" a one || r=1
has "$W/every" b two || r=1
snap=$(sed -n 's/.*copied back its last snapshot of [^ ]* (#\([0-9]*\), \([0-9]*\)s into.*/\1 \2/p' "$W/every.err")
read -r sn sec <<<"${snap:-0 0}"
[[ $sn -ge 1 && $sec -ge $((15 * sn)) && $sec -lt $((15 * sn + 5)) ]] ||
	{ echo "# snapshot #$sn at ${sec}s: not one every 15 s"; r=1; }
ok $r "run --out --snap-every 15: snapshot N at N x 15 s, holding what came before"

# TERM once the command has written a and the guest had 2 s to send it.
# shellcheck disable=SC2016 # expanded in the guest
TMPDIR=$W "$VM" run --out "$W/term" --timeout 120 --stall 0 -- \
	'echo one >$KVBENCH_OUT/a; sleep 4; echo ready; sleep 600' \
	>"$W/term.out" 2>"$W/term.err" &
pid=$!
for ((i = 0; i < 240; i++)); do
	grep -qx ready "$W/term.out" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
sleep 2
kill -TERM "$pid" 2>/dev/null
wait "$pid"
st=$?
sed "s/^/# term: /" "$W/term.out" "$W/term.err"
r=0
[[ $st -eq 143 ]] || { echo "# exit status $st, expected 143"; r=1; }
has "$W/term" a one || r=1
left=$(our_procs)
if [[ -n $left ]]; then
	while read -r line; do
		printf '# still running: %.100s\n' "$line"
	done <<<"$left"
	r=1
fi
ok $r "run --out, kvbench-vm gets TERM: exit 143, the VM and its helpers are gone, DIR holds the last snapshot"

echo "# Totals: pass:$((n - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
[[ $failed -eq 0 ]]
