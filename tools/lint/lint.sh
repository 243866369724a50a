#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh - the static quality gates of kvbench (issue 6), as one TAP suite:
#
#   checkpatch  checkpatch.pl --strict on the C files of module/, selftests/
#               and tools/kvbench/, minus tools/lint/checkpatch-exceptions
#   sparse      make C=2 on the module: Debian 6.12 headers, debug tree
#   w1          make W=1 on the module: Debian 6.1 and 6.12 headers, Debian
#               unstable's 7.2 headers (in the chroot kvbench-vm kmake
#               builds in, made once, 1-4 min), debug tree (which also
#               builds the KUnit module); then the module's call graph
#               from its objects (tools/kvbench/layers.sh --module):
#               no circle, no backend into another, the core into a
#               backend only through the backend table
#   userspace   tools/kvbench and selftests/kvbench with -Werror, the
#               tool's unit tests under ASan+UBSan
#   rst         every Documentation/**/*.rst parses with docutils, no warning
#   doccheck    parameters, sysfs files and ioctl errnos: code == docs;
#               the CLI's --help texts == tools/kvbench/README.md (and its
#               self-test: it fails on an undocumented option)
#   ShellCheck  every shell script in the repository (gate "shellcheck")
#   deps        every command that a shell script or Makefile recipe calls is
#               in tools/deps.txt; those the busybox VM runs are applets
#               (depcheck.py)
#
# Every build runs in a temporary copy of the tree's files (those git tracks
# or would track), so the gates never race with other builds in the tree.
# Missing tools are installed from tools/deps.txt (kvbench-vm deps). Gates
# can be named to run only those: lint.sh sparse w1.
#
# Output: TAP 13 on stdout ("1..N", "ok N - gate" / "not ok N - gate",
# details as "# " lines, a "# Totals:" line); exit 1 when a gate fails.

set -euo pipefail

LINT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LINT_DIR/../.." && pwd)
VM=$ROOT/tools/vm/kvbench-vm
EXCEPTIONS=$LINT_DIR/checkpatch-exceptions
ALL_GATES=(checkpatch sparse w1 userspace rst doccheck shellcheck deps)

die() { printf 'lint.sh: %s\n' "$*" >&2; exit 2; }

gates=("$@")
[[ ${#gates[@]} -gt 0 ]] || gates=("${ALL_GATES[@]}")
for g in "${gates[@]}"; do
	[[ " ${ALL_GATES[*]} " == *" $g "* ]] ||
		die "unknown gate '$g' (gates: ${ALL_GATES[*]})"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvbench-lint.XXXXXX")
# shellcheck disable=SC2064 # expand $WORK now
trap "rm -rf '$WORK'" EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The repository's files: tracked, or untracked but not ignored (so no
# build products such as *.mod.c or *.o), relative to $ROOT.
repo_files() {
	git -C "$ROOT" ls-files -co --exclude-standard |
		while IFS= read -r f; do
			if [[ -f $ROOT/$f ]]; then printf '%s\n' "$f"; fi
		done
}

# Copy the repository's files matching ERE $2 into directory $1.
snapshot() {
	mkdir -p "$1"
	repo_files | grep -E "$2" | tar -C "$ROOT" -cf - -T - | tar -C "$1" -xf -
}

# Install the commands or packages $@ of tools/deps.txt when missing; when
# that is not possible (not root), kvbench-vm says what is missing.
need() { "$VM" deps "$@"; }

# The repository's shell scripts: *.sh, and files with a sh shebang.
shell_scripts() {
	local f
	repo_files | while IFS= read -r f; do
		if [[ $f == *.sh ]] ||
			head -n 1 "$ROOT/$f" | grep -qE '^#!.*(/|env +)(ba|da|k)?sh( |$)'; then
			printf '%s\n' "$f"
		fi
	done
}

# The Debian 6.1 kernel that linux-headers-amd64 points at.
kver_61() {
	local v
	v=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\(6\.1\.0-.*-amd64\)$/\1/p' |
		sort -V | tail -n 1)
	[[ -n $v ]] || v=$(find /lib/modules -mindepth 1 -maxdepth 1 -name '6.1.0-*-amd64' \
		-printf '%f\n' 2>/dev/null | sort -V | tail -n 1)
	[[ -n $v ]] || { echo "cannot resolve the Debian 6.1 kernel (linux-headers-amd64)"; return 1; }
	printf '%s\n' "$v"
}

# Debian unstable's 7.2: KVER72, else its newest (as check.sh's 7.2 boot).
# Its chroot, where kvbench-vm kmake builds for it, is made when not cached.
kver_72() {
	local v=${KVER72:-}
	[[ -n $v ]] || v=$("$VM" kver-sid 7.2) || return 1
	KVER=$v "$VM" kdir >/dev/null || return 1
	printf '%s\n' "$v"
}

# Resolve a kernel tree once for all gates: $1 is the variable to set, the
# rest the command that prints it. On failure the variable stays empty and
# the reason is kept for the gates that need it.
declare -A TREE_ERR=()
resolve() {
	local var=$1 out
	shift
	if out=$("$@" 2>"$WORK/resolve.err"); then
		printf -v "$var" '%s' "$(tail -n 1 <<<"$out")"
	else
		printf -v "$var" '%s' ''
		TREE_ERR[$var]="$* failed: $(tail -n 5 "$WORK/resolve.err")"
	fi
}

# Fail the current gate when tree variable $1 could not be resolved.
need_tree() {
	[[ -n ${!1} ]] && return
	echo "${TREE_ERR[$1]:-$1 unresolved}"
	return 1
}

# Print compiler/modpost/sparse diagnostics in build log $1; 1 if any.
diagnostics() {
	grep -E '(warning|error):|^(WARNING|ERROR):' "$1" && return 1
	return 0
}

# Build the module in a fresh copy: $1 label, $2 extra make args (C=2 or
# W=1), $3 kernel build dir; with $4, a kernel of Debian unstable, $3 is
# the build dir in its chroot and the build runs there (kvbench-vm kmake).
# Prints what went wrong; 1 on failure.
build_module() {
	local label=$1 flags=$2 kdir=$3 kver=${4:-} dir log rc=0
	local -a make=(make)
	dir=$WORK/kbuild-${label//[^a-zA-Z0-9.]/_}-${flags%%=*}
	log=$dir.log
	snapshot "$dir" '^(VERSION|Kbuild|module/.*)$'
	[[ -z $kver ]] || make=(env KVER="$kver" "$VM" kmake "$dir")
	"${make[@]}" -C "$kdir" M="$dir" "$flags" modules >"$log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "$label: make $flags failed ($rc):"
		grep -E 'warning:|error:|Error|^(WARNING|ERROR):' "$log" | head -n 40 ||
			tail -n 20 "$log"
		return 1
	fi
	if ! diagnostics "$log" >"$log.diag"; then
		echo "$label: make $flags:"
		sed "s|$dir/||g" "$log.diag"
		return 1
	fi
	case $flags in
	C=*) echo "$label ($kdir): sparse checked $(grep -c '^ *CHECK ' "$log") files, 0 warnings"
	     [[ $(grep -c '^ *CHECK ' "$log") -gt 0 ]] || { echo "$label: sparse never ran"; return 1; } ;;
	*) echo "$label ($kdir): $(cd "$dir/module" && printf '%s ' ./*.ko)0 warnings" ;;
	esac
	BUILT_DIR=$dir
}

gate_checkpatch() {
	local files out rc=0
	need_tree KSRC
	mapfile -t files < <(repo_files |
		grep -E '^(module|selftests/kvbench|tools/kvbench)/.*\.[ch]$' |
		grep -v '\.mod\.c$')
	[[ ${#files[@]} -gt 0 ]] || { echo "no C files found"; return 1; }
	# In a copy, so that the CamelCase cache checkpatch writes in a git
	# work tree (.checkpatch-camelcase.git.*) is not left in ours; outside
	# one it would look for include/ files at "/include".
	snapshot "$WORK/checkpatch" '^(module|selftests/kvbench|tools/kvbench)/.*\.[ch]$'
	git -C "$WORK/checkpatch" init -q
	git -C "$WORK/checkpatch" -c user.name=lint -c user.email=lint@localhost \
		commit -q --allow-empty -m lint
	out=$(cd "$WORK/checkpatch" && perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree \
		--terse --show-types -f "${files[@]}" 2>&1) || rc=$?
	# Findings excused by the exception list pass; the rest, unjustified
	# and stale exceptions, and anything checkpatch says besides fail.
	awk -v nfiles="${#files[@]}" -v rc="$rc" -v exc="${EXCEPTIONS#"$ROOT"/}" '
		FNR == NR {
			if ($0 ~ /^[ \t]*(#|$)/)
				next
			if (NF < 3) {
				printf "%s:%d: exception without a justification: %s\n", exc, FNR, $0
				bad++
				next
			}
			allow[$1 " " $2] = FNR
			next
		}
		/^total: / { next }
		match($0, /^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):[A-Z0-9_]+:/) {
			split($0, f, /[: ]+/)
			split(substr($0, index($0, ": ") + 2), t, ":")
			key = f[1] " " t[2]
			if (key in allow) {
				used[key] = 1
				excused++
				next
			}
			print
			bad++
			next
		}
		/./ { print "checkpatch: " $0; bad++ }
		END {
			for (k in allow)
				if (!(k in used)) {
					printf "%s:%d: stale exception, nothing matches: %s\n", exc, allow[k], k
					bad++
				}
			# --terse prints a total only for files with findings.
			if (rc && !bad && !excused) {
				printf "checkpatch.pl exited %d without a finding\n", rc
				bad++
			}
			printf "%d files, %d findings, %d excused by %s\n", nfiles, bad, excused + 0, exc
			exit bad > 0
		}
	' "$EXCEPTIONS" - <<<"$out"
}

gate_sparse() {
	need sparse
	need_tree KDIR612
	need_tree DEBUG
	build_module "6.12 headers" C=2 "$KDIR612"
	build_module "debug tree" C=2 "$DEBUG"
}

gate_w1() {
	need_tree KDIR61
	need_tree KDIR612
	need_tree KVER72
	need_tree DEBUG
	build_module "6.1 headers" W=1 "$KDIR61"
	build_module "6.12 headers" W=1 "$KDIR612"
	build_module "7.2 headers" W=1 "/lib/modules/$KVER72/build" "$KVER72"
	build_module "debug tree" W=1 "$DEBUG"
	[[ -f $BUILT_DIR/module/kvbench_kunit.ko ]] ||
		{ echo "debug tree: kvbench_kunit.ko was not built (CONFIG_KUNIT?)"; return 1; }
	modgraph_selftest
	# the module's own files: not the linked kvbench.o, not the KUnit module
	local -a objs=()
	local o
	for o in "$BUILT_DIR"/module/kvbench_*.o "$BUILT_DIR"/module/backend_*.o; do
		[[ $o == *.mod.o || $o == */kvbench_kunit.o ]] || objs+=("$o")
	done
	modgraph "${objs[@]}"
}

# The module's call graph (layers.sh's rules for module/).
modgraph() { "$ROOT/tools/kvbench/layers.sh" --module "$@"; }

# The module's call graph must fail on each error it is checked for: a
# circle, a backend calling another, the core calling a backend outside
# the table.
modgraph_selftest() {
	local nmf=$WORK/modgraph-selftest.nm out
	cat >"$nmf" <<-'NM'
	kvbench_dev.o:0000 T kvbench_dev_fn
	kvbench_dev.o:         U kvbench_req_fn
	kvbench_req.o:0000 T kvbench_req_fn
	kvbench_req.o:         U kvbench_dev_fn
	backend_a.o:0000 D kvbench_a_ops
	backend_a.o:         U kvbench_b_ops
	backend_b.o:0000 D kvbench_b_ops
	kvbench_sysfs.o:         U kvbench_a_ops
	kvbench_main.o:         U kvbench_b_ops
	NM
	if out=$(modgraph --nm "$nmf"); then
		echo "layers.sh --module passed a graph with a circle: its self-test failed"
		return 1
	fi
	if [[ $(grep -c -e 'kvbench_dev and kvbench_req call each other' \
		      -e 'backend backend_a calls into backend backend_b: kvbench_b_ops' \
		      -e 'kvbench_sysfs calls into backend backend_a' <<<"$out") -ne 3 ]] ||
	   grep -q kvbench_main <<<"$out"; then
		echo "layers.sh --module self-test: not the three errors expected:"
		echo "$out"
		return 1
	fi
	echo "layers.sh --module self-test: a circle, a backend into a backend, the core into a backend: caught"
}

gate_userspace() {
	local dir=$WORK/user log=$WORK/user.log rc=0
	need_tree KSRC
	snapshot "$dir" '^(VERSION|module/uapi/.*|tools/kvbench/.*|selftests/kvbench/.*)$'
	{
		make -C "$dir/tools/kvbench" kvbench kvbench-test &&
		make -C "$dir/selftests/kvbench" KSRC="$KSRC"
	} >"$log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]] || ! diagnostics "$log" >/dev/null; then
		echo "build failed:"
		grep -E 'warning:|error:|Error' "$log" | sed "s|$dir/||g" | head -n 40
		return 1
	fi
	# The flags are the Makefiles' business; check they are still there.
	[[ $(grep -cE '^(cc|gcc) ' "$log") -gt 0 ]] ||
		{ echo "no cc/gcc command line in the build log (CC=${CC:-cc}?)"; return 1; }
	if [[ $(grep -E '^(cc|gcc) ' "$log" | grep -vc -- '-Wall -Wextra -Werror') -ne 0 ]]; then
		echo "compiled without -Wall -Wextra -Werror:"
		grep -E '^(cc|gcc) ' "$log" | grep -v -- '-Wall -Wextra -Werror'
		return 1
	fi
	echo "tools/kvbench, selftests/kvbench: $(grep -cE '^(cc|gcc) ' "$log") compiler runs, -Wall -Wextra -Werror, 0 warnings"
	rc=0
	make -C "$dir/tools/kvbench" test-asan >"$WORK/asan.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "make -C tools/kvbench test-asan failed ($rc):"
		grep -E '^not ok|ERROR: (Address|Leak)Sanitizer|runtime error:|warning:|error:' \
			"$WORK/asan.log" | head -n 40
		tail -n 15 "$WORK/asan.log"
		return 1
	fi
	echo "test-asan (ASan+UBSan): $(grep -E '^# Totals:' "$WORK/asan.log" | sed 's/^# //')"
}

gate_rst() {
	local files
	need_python_docutils
	mapfile -t files < <(repo_files | grep -E '^Documentation/.*\.rst$')
	[[ ${#files[@]} -gt 0 ]] || { echo "no .rst files under Documentation/"; return 1; }
	(cd "$ROOT" && python3 "$LINT_DIR/rstcheck.py" "${files[@]}")
}

gate_doccheck() {
	need_python_docutils
	# First that the checker still finds what it must (it fails on an
	# undocumented option, ...), then the tree.
	python3 "$LINT_DIR/doccheck.py" --self-test
	python3 "$LINT_DIR/doccheck.py" "$ROOT"
}

gate_shellcheck() {
	local files=()
	need shellcheck
	mapfile -t files < <(shell_scripts)
	[[ ${#files[@]} -gt 0 ]] || { echo "no shell scripts found"; return 1; }
	(cd "$ROOT" && shellcheck "${files[@]}")
	echo "${#files[@]} scripts: ${files[*]}"
}

# Every command the shell scripts and Makefiles call is in tools/deps.txt;
# the guest's are busybox applets (see depcheck.py).
gate_deps() {
	local files=()
	need python3 busybox
	mapfile -t files < <(shell_scripts; repo_files | grep -E '(^|/)Makefile$')
	busybox --list >"$WORK/applets"
	python3 "$LINT_DIR/depcheck.py" --busybox "$WORK/applets" "$ROOT" "${files[@]}"
}

need_python_docutils() {
	python3 -c 'import docutils' 2>/dev/null && return
	need python3-docutils
	python3 -c 'import docutils'
}

# Which trees the chosen gates need.
wants() {
	local g
	for g in "${gates[@]}"; do
		[[ " $* " == *" $g "* ]] && return 0
	done
	return 1
}

echo "TAP version 13"
echo "1..${#gates[@]}"

KSRC='' KDIR61='' KDIR612='' DEBUG='' KVER61=''
if wants checkpatch userspace; then
	resolve KSRC "$VM" ksrc
fi
if wants sparse w1; then
	resolve KDIR612 "$VM" kdir
	echo "# resolving the debug 6.12 tree (tools/vm/debug-kernel.sh; ~20 min when not cached)"
	resolve DEBUG "$ROOT/tools/vm/debug-kernel.sh"
fi
if wants w1; then
	resolve KVER72 kver_72
	if KVER61=$(kver_61); then
		resolve KDIR61 env KVER="$KVER61" "$VM" kdir
	else
		TREE_ERR[KDIR61]=$KVER61
		KVER61=''
	fi
fi

n=0 pass=0 fail=0
for g in "${gates[@]}"; do
	n=$((n + 1))
	log=$WORK/gate-$g.log
	start=$SECONDS
	set +e
	(set -e; "gate_$g") >"$log" 2>&1
	rc=$?
	set -e
	if [[ $rc -eq 0 ]]; then
		echo "ok $n - $g"
		pass=$((pass + 1))
	else
		echo "not ok $n - $g"
		fail=$((fail + 1))
	fi
	sed 's/^/# /' "$log"
	echo "# $g: $((SECONDS - start)) s"
done

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[[ $fail -eq 0 ]]
