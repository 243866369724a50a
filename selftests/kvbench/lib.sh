# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the kvbench selftest scripts share (kvbench.sh, kvbench_bench.sh,
# kvbench_lifecycle.sh): loading the module, /dev/kvbench, the module's
# list of backends and the kvbench CLI. POSIX sh (busybox). Sourced from
# the directory of the scripts:
#
#   . "$dir/lib.sh"
#
# The module is loaded from KVBENCH_KO=<path>/kvbench.ko with
# KVBENCH_INSMOD (default insmod) when it is set, else with
# "modprobe kvbench".

ksft_skip=4
kvb_sysdir=/sys/class/misc/kvbench
kvb_loaded=0
kvb_made_node=0
kvb_why=

# kvb_is_loaded: whether the module is loaded.
kvb_is_loaded()
{
	[ -d /sys/module/kvbench ]
}

# kvb_load [PARAM=VALUE...]: load the module, with those parameters.
# shellcheck disable=SC2120 # kvbench_lifecycle.sh passes parameters
kvb_load()
{
	if [ -n "$KVBENCH_KO" ]; then
		${KVBENCH_INSMOD:-insmod} "$KVBENCH_KO" "$@"
	else
		modprobe kvbench "$@"
	fi
}

# kvb_wait_dev: wait up to 5 s for devtmpfs to create /dev/kvbench.
kvb_wait_dev()
{
	tries=50
	while [ ! -c /dev/kvbench ] && [ $tries -gt 0 ]; do
		sleep 0.1 2>/dev/null || sleep 1
		tries=$((tries - 1))
	done
	[ -c /dev/kvbench ]
}

# kvb_setup: load the module unless it is loaded (then kvb_loaded=1), and
# see that /dev/kvbench is there: devtmpfs creates it; without devtmpfs,
# make it from sysfs (then kvb_made_node=1). Returns 0; $ksft_skip when
# the module cannot be loaded here, 1 when there is no /dev/kvbench; the
# reason in kvb_why. kvb_teardown undoes it.
# shellcheck disable=SC2034,SC2119 # kvb_why is the caller's to read
kvb_setup()
{
	kvb_why=
	if ! kvb_is_loaded; then
		if [ ! -e /proc/modules ]; then
			kvb_why="this kernel has no module support"
			return $ksft_skip
		fi
		if [ -n "$KVBENCH_KO" ]; then
			if [ ! -r "$KVBENCH_KO" ]; then
				kvb_why="KVBENCH_KO=$KVBENCH_KO is not readable"
				return $ksft_skip
			fi
			if ! kvb_load; then
				kvb_why="insmod $KVBENCH_KO failed"
				return $ksft_skip
			fi
		elif ! kvb_load; then
			kvb_why="modprobe kvbench failed"
			return $ksft_skip
		fi
		kvb_loaded=1
	fi
	kvb_wait_dev && return 0
	devnum=$(cat $kvb_sysdir/dev 2>/dev/null)
	if [ -z "$devnum" ]; then
		kvb_why="/dev/kvbench did not appear in 5 s and $kvb_sysdir/dev is missing"
		return 1
	fi
	if ! mknod -m 600 /dev/kvbench c "${devnum%%:*}" "${devnum##*:}"; then
		kvb_why="mknod /dev/kvbench c $devnum failed"
		return 1
	fi
	kvb_made_node=1
}

# kvb_teardown: remove the node kvb_setup made and unload the module if it
# loaded it. Returns 1 when rmmod failed.
kvb_teardown()
{
	if [ "$kvb_made_node" = 1 ]; then
		rm -f /dev/kvbench
		kvb_made_node=0
	fi
	if [ "$kvb_loaded" = 1 ]; then
		kvb_loaded=0
		rmmod kvbench || return 1
	fi
	return 0
}

# kvb_finish RC FD MSG: undo kvb_setup and exit with RC; when the module
# would not unload, MSG on FD (2, or 1 for a TAP comment) and 1 for an RC
# of 0. For the scripts' EXIT traps.
kvb_finish()
{
	kvb_rc=$1
	if ! kvb_teardown; then
		echo "$3" >&"$2"
		if [ "$kvb_rc" -eq 0 ]; then
			kvb_rc=1
		fi
	fi
	exit "$kvb_rc"
}

# kvb_traps CLEANUP: run the function CLEANUP at exit, and exit (130, 143)
# on SIGINT and SIGTERM, so that it runs then too.
kvb_traps()
{
	# shellcheck disable=SC2064 # the function's name, now
	trap "$1" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# kvb_backends: the backends of the loaded module, space-separated, in the
# order of its table.
kvb_backends()
{
	cat $kvb_sysdir/backends 2>/dev/null
}

# kvb_find_cli DIR: print the kvbench CLI's path: KVBENCH_CLI, else the
# first of $KVBENCH_PAYLOAD/kvbench, DIR/../kvbench, DIR/kvbench,
# DIR/../../tools/kvbench/kvbench that is there, else the one in PATH.
# Prints nothing when there is none.
kvb_find_cli()
{
	if [ -n "$KVBENCH_CLI" ]; then
		echo "$KVBENCH_CLI"
		return
	fi
	for f in "${KVBENCH_PAYLOAD:+$KVBENCH_PAYLOAD/kvbench}" "$1/../kvbench" \
		 "$1/kvbench" "$1/../../tools/kvbench/kvbench" \
		 "$(command -v kvbench 2>/dev/null)"; do
		if [ -n "$f" ] && [ -f "$f" ] && [ -x "$f" ]; then
			echo "$f"
			return
		fi
	done
}
