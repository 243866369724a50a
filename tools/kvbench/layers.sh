#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: [--module] [--nm FILE] OBJECT...: does each file call only where
# it may, and is there no circle? From the objects' symbols (nm -A): a
# file that uses a symbol another file defines calls it. Two files that
# reach each other through their calls are an error; so is, by the rules:
#
#   the tool's (default): its layers are the folders, util/ (0) < engine/
#     (1) < report/ (2) < cli/ (3) < the top (main.o, 4), and a file calls
#     into its own layer and the ones below, never up;
#   the module's (--module, the lint gate w1): a backend (backend_*) calls
#     into no other backend, and no file but the backend table
#     (kvbench_main) calls into a backend: the core knows backends only
#     through the table's ops.
#
# Errors are printed with the symbols; exit 1. --nm FILE reads that nm -A
# output from FILE instead of running nm (the tests give it one).

rules=tool
if [ "$1" = --module ]; then
	rules=module
	shift
fi
nmout=
if [ "$1" = --nm ]; then
	nmout=$2
	shift 2
fi
if [ -z "$nmout" ] && [ $# -eq 0 ]; then
	echo "usage: $0 [--module] [--nm FILE] OBJECT..." >&2
	exit 2
fi
{
	if [ -n "$nmout" ]; then
		cat "$nmout"
	else
		nm -A "$@"
	fi
} | awk -v rules="$rules" '
function layer(f) {
	if (f ~ /^util\//)
		return 0
	if (f ~ /^engine\//)
		return 1
	if (f ~ /^report\//)
		return 2
	if (f ~ /^cli\//)
		return 3
	return 4
}
function backend(f) {
	return f ~ /^backend_/
}
# The rule of the module broken by a call of f into g, or "".
function module_rule(f, g) {
	if (!backend(g))
		return ""
	if (backend(f))
		return sprintf("backend %s calls into backend %s", f, g)
	if (f != "kvbench_main")
		return sprintf("%s calls into backend %s (only the backend table may)", f, g)
	return ""
}
{
	i = index($0, ":")
	f = substr($0, 1, i - 1)
	if (rules == "module")
		sub(/^.*\//, "", f)
	sub(/\.o$/, "", f)
	n = split(substr($0, i + 1), w, " ")
	if (n == 2 && w[1] == "U") {
		use[f, w[2]] = 1
		users[w[2]] = users[w[2]] " " f
	} else if (n == 3 && w[2] ~ /^[TDBRC]$/) {
		def[w[3]] = f
	}
	files[f] = 1
}
END {
	tag = rules == "module" ? "modgraph" : "layers"
	bad = 0
	for (s in users) {
		if (!(s in def))
			continue
		g = def[s]
		m = split(users[s], u, " ")
		for (k = 1; k <= m; k++) {
			f = u[k]
			if (f == g)
				continue
			edge[f, g] = 1
			why[f, g] = why[f, g] " " s
		}
	}
	for (e in edge) {
		split(e, p, SUBSEP)
		if (rules == "module") {
			msg = module_rule(p[1], p[2])
			if (msg != "") {
				printf "%s: %s:%s\n", tag, msg, why[e]
				bad = 1
			}
		} else if (layer(p[2]) > layer(p[1])) {
			printf "layers: %s calls up into %s:%s\n", p[1], p[2], why[e]
			bad = 1
		}
	}
	# which file reaches which (Warshall), for the circles
	for (e in edge)
		reach[e] = 1
	for (k in files)
		for (i in files)
			if ((i, k) in reach)
				for (j in files)
					if ((k, j) in reach)
						reach[i, j] = 1
	for (e in reach) {
		split(e, p, SUBSEP)
		if (p[1] < p[2] && ((p[2], p[1]) in reach)) {
			printf "%s: %s and %s call each other (a circle)\n", tag, p[1], p[2]
			bad = 1
		}
	}
	nf = 0
	for (f in files)
		nf++
	if (!bad && rules == "module")
		printf "modgraph: %d files, no circle, backends reached only through the table\n", nf
	else if (!bad)
		printf "layers: %d files, no call up, no circle\n", nf
	exit bad
}'
