#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh - prove the top-level dkms.conf: copy the tree's files (those
# git tracks or would track) to /usr/src/<name>-<version>, then dkms add,
# build and install against Debian's 6.12 headers, check the installed
# module, and dkms remove. The host kernel is not a Debian kernel, so every
# step names the kernel with -k.
#
# Takes over <name>/<version> in DKMS while it runs: whatever is registered
# under it, from an earlier failed run or otherwise, is removed first and at
# exit (even on failure). Needs root; installs what it needs from
# tools/deps.txt (group dkms) when missing.
#
# Output: TAP 13 on stdout, details as "# " lines; exit 1 on failure.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM=$ROOT/tools/vm/kvbench-vm
LOCK=/run/lock/kvbench-dkms-check.lock
STEPS=(add build install installed remove)

echo "TAP version 13"
echo "1..${#STEPS[@]}"

n=0 pass=0 fail=0
tap() {			# tap RC NAME LOGFILE
	n=$((n + 1))
	if [[ $1 -eq 0 ]]; then
		echo "ok $n - $2"
		pass=$((pass + 1))
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
	# dkms runs readelf on a kernel without .comment; that noise says nothing.
	[[ -z ${3:-} ]] || grep -v "readelf: Warning: Section '.comment'" "$3" |
		grep -v '^[[:space:]]*$' | sed 's/^/# /' || true
}

# Fail every step not yet reported, with reason $1, and exit.
bail() {
	local name
	echo "# $1"
	for name in "${STEPS[@]:n}"; do
		n=$((n + 1))
		echo "not ok $n - $name # $1"
		fail=$((fail + 1))
	done
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	exit 1
}

[[ $(id -u) -eq 0 ]] || bail "dkms needs root"
[[ -f $ROOT/dkms.conf ]] || bail "no $ROOT/dkms.conf"

# dkms.conf as dkms reads it: sourced by bash (PACKAGE_VERSION comes from
# the VERSION file), in a subshell.
conf_value() {
	(
		set +eu
		# shellcheck source=/dev/null # dkms.conf is shell, not ours to check
		. "$ROOT/dkms.conf" >/dev/null
		printf '%s\n' "${!1}"
	)
}
NAME=$(conf_value PACKAGE_NAME) || NAME=
VERSION=$(conf_value PACKAGE_VERSION) || VERSION=
[[ -n $NAME && -n $VERSION ]] ||
	bail "dkms.conf: no PACKAGE_NAME or PACKAGE_VERSION"
[[ $VERSION == "$(cat "$ROOT/VERSION")" ]] ||
	bail "dkms.conf says version $VERSION, the VERSION file $(cat "$ROOT/VERSION")"
SRC=/usr/src/$NAME-$VERSION
MOD=$NAME/$VERSION

# What it says goes into the TAP output as comments.
rc=0
"$VM" deps dkms 2>&1 | sed 's/^/# /' || rc=$?
[[ $rc -eq 0 ]] || bail "cannot install dkms (tools/vm/kvbench-vm deps dkms)"

KVER=$("$VM" kver) || bail "cannot resolve the Debian 6.12 kernel (tools/vm/kvbench-vm kver)"
KDIR=$("$VM" kdir) || bail "no headers for $KVER (tools/vm/kvbench-vm kdir)"
echo "# $MOD from $SRC against $KVER ($KDIR), dkms $(dkms --version 2>/dev/null | sed 's/^dkms-//')"

# One run at a time: $SRC and the DKMS tree are machine-wide.
exec 9>"$LOCK"
flock -w 600 9 || bail "another dkms-check.sh holds $LOCK"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-dkms.XXXXXX")

# Copy the tree's files to $SRC.
copy_tree() {
	mkdir -p "$SRC"
	git -C "$ROOT" ls-files -co --exclude-standard -z |
		(cd "$ROOT" && tar --null -cf - -T - 2>/dev/null) | tar -C "$SRC" -xf -
}

# Remove every trace of $MOD: from DKMS (all kernels, modules installed
# included), the DKMS tree, the source copy. Safe to run when there is
# nothing to remove.
cleanup() {
	if [[ -d /var/lib/dkms/$NAME/$VERSION ]]; then
		# dkms remove reads the source's dkms.conf: put one back if an
		# earlier run lost it, so its installed modules go too.
		[[ -f $SRC/dkms.conf ]] || copy_tree || true
		dkms remove "$MOD" --all >>"$WORK/cleanup.log" 2>&1 || true
	fi
	# What dkms remove leaves when the tree is half-made.
	rm -rf "/var/lib/dkms/$NAME/$VERSION" "/var/lib/dkms/$NAME/kernel-"*"-$VERSION"*
	rmdir "/var/lib/dkms/$NAME" 2>/dev/null || true
	rm -rf "$SRC"
}
# shellcheck disable=SC2064 # expand $WORK now
trap "cleanup; rm -rf '$WORK'" EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cleanup
[[ ! -e $SRC ]] || bail "cannot remove the leftover $SRC"

copy_tree || bail "cannot copy the tree to $SRC"

# dkms add
rc=0
dkms add "$MOD" >"$WORK/add.log" 2>&1 || rc=$?
tap "$rc" add "$WORK/add.log"

# dkms build
rc=0
dkms build "$MOD" -k "$KVER" >"$WORK/build.log" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
	for f in "/var/lib/dkms/$NAME/$VERSION/build/make.log" \
		"/var/lib/dkms/$NAME/$VERSION/$KVER/x86_64/log/make.log"; do
		[[ -f $f ]] && { echo "--- $f"; tail -n 30 "$f"; } >>"$WORK/build.log"
	done
fi
tap "$rc" build "$WORK/build.log"

# dkms install
rc=0
dkms install "$MOD" -k "$KVER" >"$WORK/install.log" 2>&1 || rc=$?
tap "$rc" install "$WORK/install.log"

# The module is where depmod finds it, built for $KVER, and DKMS says so.
rc=0
{
	status=$(dkms status "$MOD" -k "$KVER" 2>/dev/null)
	echo "dkms status: $status"
	[[ $status == *": installed"* ]] || { echo "not installed for $KVER"; rc=1; }
	ko=$(find "/lib/modules/$KVER/updates/dkms" -name "$NAME.ko*" 2>/dev/null | head -n 1)
	if [[ -z $ko ]]; then
		echo "no $NAME.ko* in /lib/modules/$KVER/updates/dkms"
		rc=1
	else
		vermagic=$(modinfo -F vermagic "$ko" 2>&1) || true
		echo "$ko: vermagic $vermagic"
		[[ $vermagic == "$KVER "* ]] || { echo "vermagic is not $KVER"; rc=1; }
		grep -qx "updates/dkms/$(basename "$ko"):.*" "/lib/modules/$KVER/modules.dep" ||
			{ echo "not in /lib/modules/$KVER/modules.dep"; rc=1; }
	fi
} >"$WORK/installed.log" 2>&1
tap "$rc" installed "$WORK/installed.log"

# dkms remove, and nothing is left behind
rc=0
dkms remove "$MOD" --all >"$WORK/remove.log" 2>&1 || rc=$?
{
	[[ -z $(dkms status "$MOD" 2>/dev/null) ]] || { echo "dkms status still lists $MOD"; rc=1; }
	if compgen -G "/lib/modules/$KVER/updates/dkms/$NAME.ko*" >/dev/null; then
		echo "/lib/modules/$KVER/updates/dkms/$NAME.ko* is still there"
		rc=1
	fi
} >>"$WORK/remove.log" 2>&1
tap "$rc" remove "$WORK/remove.log"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[[ $fail -eq 0 ]]
