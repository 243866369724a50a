#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: modgraph.sh [--nm FILE] OBJECT...: the module's files, as the
# objects' symbols show which calls which (nm -A: a file that uses a symbol
# another file defines calls it). Errors, printed with the symbols; exit 1:
#
#   - a circle: two files that reach each other through their calls;
#   - a backend (backend_*) that calls into another backend;
#   - a file other than the backend table (kvbench_main) that calls into a
#     backend: the core knows backends only through the table's ops.
#
# --nm FILE reads that nm -A output from FILE instead of running nm (the
# lint gate's self-test gives it one with each error).

nmout=
if [ "$1" = --nm ]; then
	nmout=$2
	shift 2
fi
if [ -z "$nmout" ] && [ $# -eq 0 ]; then
	echo "usage: $0 [--nm FILE] OBJECT..." >&2
	exit 2
fi
{
	if [ -n "$nmout" ]; then
		cat "$nmout"
	else
		nm -A "$@"
	fi
} | awk '
function backend(f) {
	return f ~ /^backend_/
}
{
	i = index($0, ":")
	f = substr($0, 1, i - 1)
	sub(/^.*\//, "", f)
	sub(/\.o$/, "", f)
	n = split(substr($0, i + 1), w, " ")
	if (n == 2 && w[1] == "U")
		users[w[2]] = users[w[2]] " " f
	else if (n == 3 && w[2] ~ /^[TDBRC]$/)
		def[w[3]] = f
	files[f] = 1
}
END {
	bad = 0
	for (s in users) {
		if (!(s in def))
			continue
		g = def[s]
		m = split(users[s], u, " ")
		for (k = 1; k <= m; k++) {
			if (u[k] == g)
				continue
			edge[u[k], g] = 1
			why[u[k], g] = why[u[k], g] " " s
		}
	}
	for (e in edge) {
		split(e, p, SUBSEP)
		if (!backend(p[2]))
			continue
		if (backend(p[1])) {
			printf "modgraph: backend %s calls into backend %s:%s\n", p[1], p[2], why[e]
			bad = 1
		} else if (p[1] != "kvbench_main") {
			printf "modgraph: %s calls into backend %s (only the backend table may):%s\n",
			       p[1], p[2], why[e]
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
			printf "modgraph: %s and %s call each other (a circle)\n", p[1], p[2]
			bad = 1
		}
	}
	nf = 0
	for (f in files)
		nf++
	if (!bad)
		printf "modgraph: %d files, no circle, backends reached only through the table\n", nf
	exit bad
}'
