#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the headline figures of one `make bench` run.

Usage: figures.py RESULTS_DIR
       figures.py --help

Reads the JSON reports (schema kvbench-bench/4, /3, /2 or /1, see README.md) that
tools/vm/bench.sh leaves in RESULTS_DIR and prints each figure that
Documentation/results.rst discusses, every ratio taken within one report,
with the rows it comes from. Nothing here is a pass/fail test: a figure
that misses its aim is printed as such. The main suite's workloads (YCSB
C, B, A and the seed's GETs; an older report's mixes) set each backend
against rwlock; the verdict, with its intervals, is kvbench report's.
"""

import json
import os
import signal
import sys
from statistics import median


def load(path):
    """A report, in schema kvbench-bench/3 terms: in /1, ns_per_op was per
    thread (what /2 calls lat_per_op_ns); /2's ns_per_op is 1e9 / ops/s.
    /3 kept every field read here: latency_ns p50 and p99 are there, null
    when too few samples were timed for them (as when none were), which
    the tail figures skip; ops_per_sec_stats' ci95_low/high became
    mean_ci95_low/high, which nothing here reads. /4 changed the verdict's
    marks only, which nothing here reads."""
    try:
        with open(path) as f:
            report = json.load(f)
    except OSError as e:
        sys.exit(f"figures.py: {path}: {e.strerror}")
    except ValueError as e:
        sys.exit(f"figures.py: {path}: not JSON: {e}")
    schema = report.get("schema")
    if schema == "kvbench-bench/1":
        for r in report["results"]:
            lat = r["ns_per_op"]
            r["lat_per_op_ns"] = lat
            r["ns_per_op"] = lat / r["threads"] if lat is not None else None
    elif schema not in ("kvbench-bench/2", "kvbench-bench/3", "kvbench-bench/4"):
        sys.exit(f"{path}: schema {schema}: figures.py reads kvbench-bench/1 to /4")
    return report


def row(report, backend, mix="get", threads=None, batch=1, fd="per-thread",
        multi=False):
    """The one result of @report matching the arguments, or None. A target
    without an fd (fd null: the userspace baselines, bpf-htab) matches any.
    multi: packed MGET/MSET/MDEL calls of @batch keys, not a BATCH (a report
    without the field has none)."""
    for r in report["results"]:
        if (r["backend"] != backend or r["batch"] != batch or
                r.get("multi", False) != multi):
            continue
        if r["fd"] is not None and r["fd"] != fd:
            continue
        if backend != "nop" and r["mix"]["name"] != mix:
            continue
        if threads is not None and r["threads"] != threads:
            continue
        return r
    return None


def spread_rows(report, backend):
    """The cases of @backend whose run-to-run spread was measured."""
    return [r for r in report["results"] if r["backend"] == backend and
            r["runs"] > 1 and r["spread_pct"] is not None]


def val(r, key):
    """Field @key of result @r; NaN when the row is missing (a run cut short
    by its budget or killed has only the cases it finished)."""
    return r[key] if r else float("nan")


def hash_bits(report, r):
    """The hash_bits result @r of @report ran at: its own field, or, in a
    report from before it had one, the module's at the start; "?" when
    neither is known."""
    if r and r.get("hash_bits") is not None:
        return r["hash_bits"]
    params = (report.get("provenance") or {}).get("module_parameters") or {}
    return params.get("hash_bits", "?")


def ratio(a, b):
    return a / b if a and b else float("nan")


def verdict(ok):
    return "meets the aim" if ok else "MISSES the aim"


def main():
    # figures.py ... | head: stop quietly, as a shell tool does
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:]
    if args in (["-h"], ["--help"]):
        print(__doc__.strip())
        return
    if len(args) != 1 or args[0].startswith("-"):
        sys.exit("usage: figures.py RESULTS_DIR (figures.py --help says more)")
    d = args[0]
    if not os.path.isdir(d):
        sys.exit(f"figures.py: {d}: no such directory (a results/ run of make bench)")
    main_r = load(os.path.join(d, "bench.json"))
    n = main_r["cpus"]
    print(f"run {main_r['date']}, kernel {main_r['kernel']}, {n} CPUs")
    if not main_r.get("complete", True) or main_r.get("skipped_cases"):
        print(f"a partial report: {len(main_r['results'])} cases measured, "
              f"{main_r.get('skipped_cases', 0)} skipped by the budget; "
              "figures without their rows read nan")

    # The main suite runs workloads (kvbench bench -W); an older report
    # ran mixes: "get" stands for the seed's GETs either way.
    wls = [w for w in ("ycsb-c", "ycsb-b", "ycsb-a", "seed")
           if any(r["mix"]["name"] == w for r in main_r["results"])]
    get = "seed" if "seed" in wls else "get"

    for t in sorted({r["threads"] for r in main_r["results"]}):
        nop = row(main_r, "nop", threads=t)
        rcu = row(main_r, "rcu", get, threads=t)
        c = ratio(val(rcu, 'ns_per_op'), val(nop, 'ns_per_op'))
        print(f"RCU GET / NOP at {t} threads: {c:.2f}x "
              f"({val(rcu, 'lat_per_op_ns'):.0f} vs {val(nop, 'lat_per_op_ns'):.0f} "
              "ns per op and thread, lat/op); "
              f"aim <= 1.25x: {verdict(c <= 1.25)}")

    one = row(main_r, "rcu", get, threads=1)
    top = row(main_r, "rcu", get, threads=n)
    s = ratio(val(top, 'ops_per_sec'), val(one, 'ops_per_sec'))
    print(f"RCU GET scaling 1 -> {n} threads: {s:.2f}x; aim >= {0.9 * n:.1f}x: "
          f"{verdict(s >= 0.9 * n)}")

    # Every backend against rwlock, per workload (or mix) and thread count
    others = ("rcu", "rhashtable", "combining", "kthread", "kthread-percpu", "bpf-htab")
    for mix in wls or ("get", "90:10", "50:50"):
        for t in (1, n):
            rw = row(main_r, "rwlock", mix, t)
            cells = [f"{b} {ratio(val(row(main_r, b, mix, t), 'ops_per_sec'), val(rw, 'ops_per_sec')):.2f}"
                     for b in others]
            print(f"{mix:>6} {t} thr, ops/s over rwlock's: " + ", ".join(cells))

    for t in (1, n):
        ur = row(main_r, "user-rwlock", get, threads=t)
        uo = row(main_r, "user-owner", get, threads=t)
        rw = row(main_r, "rwlock", get, threads=t)
        kt = row(main_r, "kthread", get, threads=t)
        print(f"the seed's question at {t} threads: user-rwlock / user-owner "
              f"{ratio(val(ur, 'ops_per_sec'), val(uo, 'ops_per_sec')):.1f}x "
              f"({val(ur, 'ns_per_op'):.1f} vs {val(uo, 'ns_per_op'):.1f} ns/op, Go's "
              "1e9 / ops/s; the seed: 48.59 vs 640.1, 13x, at 16 threads); in the kernel "
              f"rwlock / kthread {ratio(val(rw, 'ops_per_sec'), val(kt, 'ops_per_sec')):.1f}x "
              f"({val(rw, 'ns_per_op'):.0f} vs {val(kt, 'ns_per_op'):.0f} ns/op)")

    # The peer: the kernel's own hash map through bpf(2), same keys and values.
    for t in (1, n):
        bh = row(main_r, "bpf-htab", get, threads=t)
        for b in ("rcu", "rwlock"):
            k = row(main_r, b, get, threads=t)
            print(f"{b} / bpf-htab GET at {t} threads: "
                  f"{ratio(val(k, 'ops_per_sec'), val(bh, 'ops_per_sec')):.2f}x throughput "
                  f"({val(k, 'ns_per_op'):.0f} vs {val(bh, 'ns_per_op'):.0f} ns/op)")

    # The owners' steadiness (issue 13): over every case of the main suite,
    # the widest run-to-run spread and the largest p99 / p50.
    for b in ("kthread", "kthread-percpu"):
        rows = [r for r in main_r["results"] if r["backend"] == b]
        spreads = [(r["spread_pct"], r) for r in spread_rows(main_r, b)]
        tails = [(r["latency_ns"]["p99"] / r["latency_ns"]["p50"], r) for r in rows
                 if r["latency_ns"]["p50"] and r["latency_ns"]["p99"]]
        if not spreads or not tails:
            print(f"{b}: spread and p99/p50 not measured (one run per case, or no rows)")
            continue
        (sp, rs), (tl, rt) = max(spreads, key=lambda x: x[0]), max(tails, key=lambda x: x[0])

        def case(r):
            return f"{r['mix']['name']} {r['threads']} thr batch {r['batch']}"
        print(f"{b}: widest spread {sp:.1f}% ({case(rs)}), aim <= 10%: {verdict(sp <= 10)}; "
              f"largest p99/p50 {tl:.1f}x ({case(rt)}), aim <= 20x: {verdict(tl <= 20)}")

    # What the run itself can judge: the same spread for every target. The
    # targets that hand nothing to another thread (a lock, RCU, a syscall
    # and back) show the host's own noise; an owner's spread above the aim
    # means something only where theirs is well below it.
    print("run spread per target: median, widest, cases above 10%")
    for b in sorted({r["backend"] for r in main_r["results"]}):
        sp = sorted(r["spread_pct"] for r in spread_rows(main_r, b))
        if not sp:
            continue
        over = sum(x > 10 for x in sp)
        print(f"  {b:<15} {median(sp):5.1f}% {sp[-1]:6.1f}%  {over} of {len(sp)}")

    fd_path = os.path.join(d, "fd.json")
    if os.path.exists(fd_path):
        fd = load(fd_path)
        for b in ("nop", "rcu"):
            per = row(fd, b, fd="per-thread")
            sh = row(fd, b, fd="shared")
            print(f"shared fd / per-thread fd, {b} at {val(per, 'threads')} threads: "
                  f"{ratio(val(sh, 'ns_per_op'), val(per, 'ns_per_op')):.3f}x ns/op")

    m_path = os.path.join(d, "multi.json")
    if os.path.exists(m_path):
        m = load(m_path)
        for r in m["results"]:
            if not r.get("multi"):
                continue
            b = row(m, r["backend"], "get", r["threads"], batch=r["batch"])
            print(f"MGET({r['batch']}) / BATCH({r['batch']}) GET, {r['backend']} at "
                  f"{r['threads']} threads: "
                  f"{ratio(r['ns_per_op'], val(b, 'ns_per_op')):.2f}x ns/op "
                  f"({r['ns_per_op']:.0f} vs {val(b, 'ns_per_op'):.0f})")

    # uring.json: GET at as many threads as CPUs through single ioctls,
    # BATCH(64) and io_uring at queue depths, against rwlock's single ioctls
    u_path = os.path.join(d, "uring.json")
    if os.path.exists(u_path):
        u = load(u_path)
        rw = row(u, "rwlock")
        for b in ("rcu", "kthread", "kthread-percpu", "combining"):
            single, batch = row(u, b), row(u, b, batch=64)
            cells = [f"BATCH(64) {ratio(val(batch, 'ops_per_sec'), val(rw, 'ops_per_sec')):.2f}"]
            for qd in (1, 16, 64):
                q = row(u, f"{b}/uring-qd{qd}")
                cells.append(f"uring qd{qd} "
                             f"{ratio(val(q, 'ops_per_sec'), val(rw, 'ops_per_sec')):.2f}")
            print(f"{b} GET at {val(single, 'threads')} threads over rwlock's single ioctls: "
                  f"single {ratio(val(single, 'ops_per_sec'), val(rw, 'ops_per_sec')):.2f}, "
                  + ", ".join(cells))

    z_path = os.path.join(d, "zipf.json")
    if os.path.exists(z_path):
        z = load(z_path)
        rwz = row(z, "rwlock", "90:10")
        for r in z["results"]:
            u = row(main_r, r["backend"], "90:10", r["threads"])
            if u:
                print(f"zipf / uniform 90:10, {r['backend']} at {r['threads']} threads: "
                      f"{ratio(r['ops_per_sec'], val(u, 'ops_per_sec')):.2f}x ops/s "
                      "(two reports of the same run)")
            else:
                print(f"zipf(0.99) 90:10, {r['backend']} at {r['threads']} threads: "
                      f"{ratio(r['ops_per_sec'], val(rwz, 'ops_per_sec')):.2f}x rwlock's ops/s")

    # keys-1000000.json: the tables sized for the keys by kvbench bench;
    # keys-1000000-default.json: at the module's default (--keep-hash-bits).
    # A run from before kvbench sized them has keys-1000000.json at the
    # default and keys-1000000-bits20.json at hash_bits=20: each line says
    # which hash_bits it is.
    k1_path = os.path.join(d, "keys-1000.json")
    k2_path = os.path.join(d, "keys-1000000.json")
    more = [os.path.join(d, f) for f in ("keys-1000000-default.json",
                                         "keys-1000000-bits20.json")]
    if os.path.exists(k1_path) and os.path.exists(k2_path):
        k1, k2 = load(k1_path), load(k2_path)
        others = [load(p) for p in more if os.path.exists(p)]
        # every backend both studies ran, in the order they ran
        names = [r["backend"] for r in k2["results"]]
        for b in [n for i, n in enumerate(names) if n not in names[:i]]:
            a, m = row(k1, b), row(k2, b)
            if not a or not m:
                continue
            c = ratio(val(m, 'ns_per_op'), val(a, 'ns_per_op'))
            line = f"GET 1,000,000 / 1,000 keys, {b}: {c:.2f}x ns/op"
            if b != "rhashtable":
                line += f" (hash_bits {hash_bits(k2, m)})"
            line += f"; aim <= 2x: {verdict(c <= 2)}"
            if b != "rhashtable":
                for o in others:
                    r = row(o, b)
                    if r:
                        line += (f"; at hash_bits {hash_bits(o, r)}: "
                                 f"{ratio(val(r, 'ns_per_op'), val(a, 'ns_per_op')):.2f}x")
            print(line)


if __name__ == "__main__":
    main()
