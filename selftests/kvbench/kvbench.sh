#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kvbench kselftests: load the module when it is not loaded yet,
# run ./kvbench_test (arguments are passed on, e.g. -v rwlock), and unload
# the module again only if this script loaded it.
#
# KVBENCH_KO=<path>/kvbench.ko  insmod that file instead of "modprobe kvbench".
#
# Exit status: the test binary's; 4 (KSFT_SKIP) when the tests cannot run
# here (not root, no module support, module not available).

ksft_skip=4
dir=$(dirname "$0")
loaded=0
made_node=0

skip()
{
	echo "$0: SKIP: $*" >&2
	exit $ksft_skip
}

cleanup()
{
	rc=$?
	if [ "$made_node" = 1 ]; then
		rm -f /dev/kvbench
	fi
	if [ "$loaded" = 1 ] && ! rmmod kvbench; then
		echo "$0: rmmod kvbench failed" >&2
		if [ "$rc" -eq 0 ]; then
			rc=1
		fi
	fi
	exit "$rc"
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$(id -u)" -ne 0 ]; then
	skip "must be run as root"
fi

if [ ! -x "$dir/kvbench_test" ]; then
	echo "$0: $dir/kvbench_test not found: run make first" >&2
	exit 1
fi

if [ ! -d /sys/module/kvbench ]; then
	if [ ! -e /proc/modules ]; then
		skip "this kernel has no module support"
	fi
	if [ -n "$KVBENCH_KO" ]; then
		if [ ! -r "$KVBENCH_KO" ]; then
			skip "KVBENCH_KO=$KVBENCH_KO is not readable"
		fi
		insmod "$KVBENCH_KO" || skip "insmod $KVBENCH_KO failed"
	else
		modprobe kvbench || skip "modprobe kvbench failed"
	fi
	loaded=1
fi

# devtmpfs creates the node; without it, make one from sysfs.
tries=50
while [ ! -c /dev/kvbench ] && [ $tries -gt 0 ]; do
	sleep 0.1 2>/dev/null || sleep 1
	tries=$((tries - 1))
done
if [ ! -c /dev/kvbench ]; then
	devnum=$(cat /sys/class/misc/kvbench/dev 2>/dev/null)
	if [ -z "$devnum" ]; then
		echo "$0: /dev/kvbench did not appear" >&2
		exit 1
	fi
	mknod -m 600 /dev/kvbench c "${devnum%%:*}" "${devnum##*:}" || exit 1
	made_node=1
fi

"$dir/kvbench_test" "$@"
