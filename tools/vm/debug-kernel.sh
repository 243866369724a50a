#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [--cached] [debug|kcsan] - build (once) a debug kernel that judges
# kvbench, from Debian's linux-source-6.12 and a config fragment beside this
# script:
#   debug  (default) allnoconfig plus debug.config: lockdep, PROVE_RCU,
#          KASAN, kmemleak, fault injection, KUnit, ... and only what the
#          VM, the module and the suites need
#   kcsan  allnoconfig plus kcsan.config: KCSAN and lockdep, and only what
#          the VM and the module need (KCSAN excludes KASAN)
#
# Prints the build directory: bzImage is at arch/x86/boot/bzImage in it, and
# out-of-tree modules build with `make -C <dir> M=<module dir>`. The build is
# cached under $KVBENCH_CACHE/debug-kernel/<key>, where the key hashes the
# base config, the fragment and the source package version, so it is redone
# only when one of them changes.

set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${KVBENCH_CACHE:-$HOME/.cache/kvbench}
# --cached: print the build directory when the kernel is built, else fail
# (exit 1) without building it.
CACHED_ONLY=
if [[ ${1:-} == --cached ]]; then
	CACHED_ONLY=1
	shift
fi
FLAVOR=${1:-debug}

case $FLAVOR in
debug) TAKES="about 8 minutes" ;;
kcsan) TAKES="about 5 minutes" ;;
*) echo "usage: ${0##*/} [debug|kcsan]" >&2; exit 2 ;;
esac
FRAGMENT=$VM_DIR/$FLAVOR.config

msg() { printf 'debug-kernel: %s\n' "$*" >&2; }

src=$("$VM_DIR/kvbench-vm" ksrc)
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
# "allnoconfig": the base config, as the key has always said.
key=$( (cat "$FRAGMENT"; echo "$srcver"; echo allnoconfig) |
	sha256sum | cut -c1-16)
out=$CACHE/debug-kernel/$key

if [[ -f $out/.kvbench-built ]]; then
	echo "$out"
	exit 0
fi
[[ -z $CACHED_ONLY ]] || exit 1

# One build of a directory at a time: two makes in one O= directory delete
# each other's dependency files ("fixdep: error opening file") and both
# fail. make check, make lint and make bench may all want the same kernel
# at once; whoever comes second waits, then finds it built.
mkdir -p "$CACHE/debug-kernel"
exec {lock}>"$out.lock"
if ! flock -n "$lock"; then
	msg "waiting for another build of the $FLAVOR kernel in $out"
	flock "$lock"
fi
if [[ -f $out/.kvbench-built ]]; then
	echo "$out"
	exit 0
fi

# What the kernel's build needs (tools/deps.txt, group debug).
"$VM_DIR/kvbench-vm" deps debug

mkdir -p "$out"
msg "building the $FLAVOR kernel in $out ($TAKES on 2 cores, once)"
log=$out/build.log
# make STEP...: one step of the build, into the log; on failure, its tail.
kmake() {
	make -C "$src" O="$out" "$@" >>"$log" 2>&1 && return
	tail -n 30 "$log" >&2
	msg "build failed; full log in $log"
	exit 1
}
: >"$log"
kmake KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig

# Every line of the fragment must have survived allnoconfig: said before
# the long build.
bad=0
while IFS= read -r line; do
	[[ $line =~ ^CONFIG_([A-Z0-9_]+)=(.*)$ ]] || continue
	opt=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
	if [[ $val == n ]]; then
		grep -q "^CONFIG_$opt=" "$out/.config" && { msg "CONFIG_$opt is set"; bad=1; }
	else
		grep -qx "CONFIG_$opt=$val" "$out/.config" || { msg "CONFIG_$opt is not $val"; bad=1; }
	fi
done <"$FRAGMENT"
[[ $bad -eq 0 ]] || msg "warning: the config differs from ${FRAGMENT##*/} (see above)"

kmake -j"$(nproc)" bzImage modules

touch "$out/.kvbench-built"
echo "$out"
