# SPDX-License-Identifier: MIT
# bench/run_output.py: how bench/run prints its results, as a table on the
# terminal and as the markdown tables of docs/PERFORMANCE.md.  Imported by
# bench/run; the result dictionary's shape is bench/run's.

def f(v, spec, dash="-"):
    return dash if v is None else format(v, spec)


def rng(r, k, scale=1.0, spec=".2f"):
    lo, hi = r.get(k + "_range", (None, None))
    return "" if lo is None else f"{lo * scale:{spec}}-{hi * scale:{spec}}"


def print_workload(w):
    print(f"\n== {w['workload']}: {' '.join(w['argv'])}  ({w['functions']} XRay functions, "
          f"{f(w['calls'], '.0f')} calls, counted by {w['calls_from']})")
    for k, v in w["not_run"].items():
        print(f"   not run: {'XRay modes' if k == 'why_no_xray' else 'bpftrace, perf'}: {v}")
    print(f"{'config':34} {'wall s':>7} {'(range)':>13} {'cpu s':>7} {'x xray':>7} "
          f"{'x xray':>7} {'x floor':>7} {'x floor':>7} {'ns/call':>8} {'coll':>5} {'B/ev':>6} "
          f"{'drops':>5} {'rss MiB':>7}")
    print(f"{'':34} {'':>7} {'':>13} {'':>7} {'wall':>7} {'cpu':>7} {'wall':>7} {'cpu':>7} "
          f"{'cpu':>8} {'ns/ev':>5}")
    for r in w["rows"]:
        print(f"{r['config']:34} {f(r['wall_s'], '7.3f')} {rng(r, 'wall_s', 1, '.2f'):>13} "
              f"{f(r['cpu_s'], '7.3f')} {f(r.get('x_xray_wall'), '7.2f')} "
              f"{f(r.get('x_xray_cpu'), '7.2f')} {f(r.get('x_floor_wall'), '7.2f')} "
              f"{f(r.get('x_floor_cpu'), '7.2f')} {f(r.get('ns_per_call_cpu'), '8.0f')} "
              f"{f(r['collector_ns_per_event'], '5.0f')} {f(r['bytes_per_event'], '6.2f')} "
              f"{f(r['dropped_max'] if r['events'] is not None else None, '5d')} "
              f"{f(r['rss_kib'] and r['rss_kib'] / 1024, '7.1f')}"
              + (f"  ERROR: {'; '.join(r['errors'])}" if r["errors"] else ""))


def print_all(res):
    print(f"sledtrace bench {res['date']}  kernel {res['kernel']}  {res['cpus']} CPUs "
          f"({res['cpu_model']})  commit {res['commit']}"
          f"{' +' + str(len(res['tree_modified'])) + ' modified files' if res['tree_modified'] else ''}"
          f"  load {' '.join(res['loadavg_start'])} -> {' '.join(res['loadavg_end'])}  "
          f"{res['bench_seconds']:.0f} s, {res['reps']} reps")
    for w in res["workloads"]:
        print_workload(w)
    print("\n== fixed costs: trivial runs (sledtrace default; medians)")
    print(f"{'case':34} {'untr s':>7} {'wall s':>7} {'overh ms':>8} {'probes':>6} {'open':>6} "
          f"{'load':>6} {'start':>6} {'attach':>6} {'finish':>6} {'detach':>6} {'rss MiB':>7}")
    for r in res["fixed"]:
        print(f"{r['case']:34} {f(r['untraced_wall_s'], '7.3f')} {f(r['wall_s'], '7.3f')} "
              f"{f(r['overhead_ms'], '8.1f')} {f(r['probes'], '6.0f')} {f(r['open_ms'], '6.1f')} "
              f"{f(r['load_ms'], '6.1f')} {f(r['start_ms'], '6.1f')} {f(r['attach_ms'], '6.1f')} "
              f"{f(r['finish_ms'], '6.1f')} {f(r['detach_ms'], '6.1f')} "
              f"{f(r['rss_kib'] and r['rss_kib'] / 1024, '7.1f')}")
    print("\n== attach/detach (generated programs, no calls; ms, medians)")
    print(f"{'sleds':>7} {'exit':6} {'probes':>7} {'attach':>8} {'(range)':>13} "
          f"{'detach waited':>13} {'teardown':>9} {'(range)':>13}")
    for r in res["attach"]:
        print(f"{r['sleds']:>7} {r['exit']:6} {f(r['probes'], '7.0f')} {f(r['attach_ms'], '8.1f')} "
              f"{rng(r, 'attach_ms', 1, '.0f'):>13} {f(r['detach_ms_waited'], '13.1f')} "
              f"{f(r['detach_ms_teardown'], '9.1f')} {rng(r, 'detach_ms_teardown', 1, '.0f'):>13}"
              + (f"  ERROR: {'; '.join(r['errors'])}" if r["errors"] else ""))
    print("\n== peak RSS of sledtrace, loop fixture")
    for r in res["rss"]:
        print(f"{r['calls']:>9} calls: {f(r['events'], 'd')} events, "
              f"{f(r['rss_kib'] and r['rss_kib'] / 1024, '.1f')} MiB, {f(r['dropped'], 'd')} dropped")
    rd = res["readers"]
    print(f"\n== readers, zstd trace ({rd['events']} events, {rd['bytes']} bytes)")
    for k in ("report", "convert folded"):
        print(f"{k:15} {f(rd[k]['wall_s'], '.3f')} s  {f(rd[k]['events_per_s'], ',.0f')} events/s"
              + (f"  ERROR: {'; '.join(rd[k]['errors'])}" if rd[k]["errors"] else ""))


def markdown(res):
    """The same tables as markdown, for docs/PERFORMANCE.md."""
    out = []
    for w in res["workloads"]:
        out.append(f"\n### {w['workload']}: `{' '.join(w['argv'])}`\n")
        out.append(f"{w['functions']} XRay functions, {f(w['calls'], ',.0f')} calls (counted by "
                   f"{w['calls_from']})." + "".join(f" Not run: {v}." for v in w["not_run"].values())
                   + "\n")
        out.append("| configuration | wall s (range) | CPU s | x XRay basic wall / CPU | "
                   "x floor wall / CPU | CPU ns/call | collector ns/event | B/event | drops | "
                   "RSS MiB |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in w["rows"]:
            lo, hi = r["wall_s_range"]
            out.append(
                f"| {r['config']} | {f(r['wall_s'], '.3f')} ({f(lo, '.3f')}-{f(hi, '.3f')}) | "
                f"{f(r['cpu_s'], '.3f')} | {f(r.get('x_xray_wall'), '.2f')} / "
                f"{f(r.get('x_xray_cpu'), '.2f')} | {f(r.get('x_floor_wall'), '.2f')} / "
                f"{f(r.get('x_floor_cpu'), '.2f')} | {f(r.get('ns_per_call_cpu'), ',.0f')} | "
                f"{f(r['collector_ns_per_event'], '.0f')} | {f(r['bytes_per_event'], '.2f')} | "
                f"{f(r['dropped_max'] if r['events'] is not None else None, 'd')} | "
                f"{f(r['rss_kib'] and r['rss_kib'] / 1024, '.1f')} |"
                + (f" error: {'; '.join(r['errors'])}" if r["errors"] else ""))
    out.append("\n### Fixed costs of a trivial run (ms, medians)\n")
    out.append("| case | untraced s | sledtrace s | overhead ms | probes | open | load | start "
               "(attach) | finish | detach waited | RSS MiB |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in res["fixed"]:
        out.append(f"| {r['case']} | {f(r['untraced_wall_s'], '.3f')} | {f(r['wall_s'], '.3f')} | "
                   f"{f(r['overhead_ms'], '.1f')} | {f(r['probes'], '.0f')} | "
                   f"{f(r['open_ms'], '.1f')} | {f(r['load_ms'], '.1f')} | "
                   f"{f(r['start_ms'], '.1f')} ({f(r['attach_ms'], '.1f')}) | "
                   f"{f(r['finish_ms'], '.1f')} | {f(r['detach_ms'], '.1f')} | "
                   f"{f(r['rss_kib'] and r['rss_kib'] / 1024, '.1f')} |")
    out.append("\n### Attach and detach (ms, medians; range)\n")
    out.append("| sleds | exit | probes | attach | detach waited | kernel teardown |")
    out.append("|---|---|---|---|---|---|")
    for r in res["attach"]:
        a, t = r["attach_ms_range"], r["detach_ms_teardown_range"]
        out.append(f"| {r['sleds']:,} | {r['exit']} | {f(r['probes'], ',.0f')} | "
                   f"{f(r['attach_ms'], '.1f')} ({f(a[0], '.0f')}-{f(a[1], '.0f')}) | "
                   f"{f(r['detach_ms_waited'], '.1f')} | {f(r['detach_ms_teardown'], '.1f')} "
                   f"({f(t[0], '.0f')}-{f(t[1], '.0f')}) |"
                   + (f" error: {'; '.join(r['errors'])}" if r["errors"] else ""))
    return "\n".join(out)
