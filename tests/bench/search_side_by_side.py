#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two builds' whole-process searches, side by side (a benchmark, not a test).

On a machine whose speed drifts from minute to minute (a shared one), two
runs of search_bench one after the other compare the moments more than the
builds.  This runs both builds at once instead: build A's originsd on the
store that search_bench made and kept (--dir), build B's on a copy of it,
and for each query of search_bench's mix, in every round, `origin search
... --json` of one build and then of the other (the order swapped every
round), as search_bench times it.  It prints each query's median for both,
their ratio, and the p50 and p99 of the mix.

  search_side_by_side.py --dir /var/tmp/sb2m --copy /var/tmp/sb2m-b \\
      --a build-old/daemon/originsd build-old/client/origin \\
      --b build-rel/daemon/originsd build-rel/client/origin [--rounds 21]

--copy: where the second store lives; made from DIR/home (cp -a) when it
does not exist.  The two daemons share the page cache, and Python starts
each process: the times are higher than search_bench's, the ratios are what
it is for (docs/performance.md).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

# search_bench's mix (tests/bench/search_bench.cpp), in its order.
QUERIES = [
    ("rare word", ["quokka"]),
    ("common word", ["catalog"]),
    ("two words (AND)", ["deploy", "timeout"]),
    ("one CJK letter", ["库"]),
    ("two CJK letters", ["部署"]),
    ("snake_case identifier", ["retry_handler", "--all"]),
    ("short term", ["AI"]),
    ("with tool events", ["schema", "migrate", "--all"]),
    ("--recent", ["latency", "--recent"]),
    ("project filter", ["cache", "--project", "parser-1"]),
]


def environment(corpus, home):
    env = dict(os.environ)
    env.update({
        "ORIGIN_HOME": home,
        "CLAUDE_CONFIG_DIR": os.path.join(corpus, "claude"),
        "CODEX_HOME": os.path.join(corpus, "codex"),
        "ORIGIN_NO_AUTOSTART": "1",
    })
    return env


def quiet(argv, env):
    return subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="search_bench's --dir (home/, claude/, codex/)")
    ap.add_argument("--copy", required=True, help="where build B's copy of the store lives")
    ap.add_argument("--a", nargs=2, required=True, metavar=("ORIGINSD", "ORIGIN"))
    ap.add_argument("--b", nargs=2, required=True, metavar=("ORIGINSD", "ORIGIN"))
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()

    home_a = os.path.join(args.dir, "home")
    home_b = os.path.join(args.copy, "home")
    if not os.path.isdir(os.path.join(home_a, "run")) and not os.path.exists(
            os.path.join(home_a, "origin.db")):
        sys.exit(f"{home_a}: no store (run search_bench --dir {args.dir} first)")
    if not os.path.exists(home_b):
        print(f"copying {home_a} to {home_b} ...", flush=True)
        os.makedirs(args.copy, exist_ok=True)
        subprocess.run(["cp", "-a", home_a, home_b], check=True)
    builds = {"A": (args.a, environment(args.dir, home_a)),
              "B": (args.b, environment(args.dir, home_b))}

    daemons = []
    try:
        for (originsd, _), env in builds.values():
            daemons.append(subprocess.Popen([originsd], env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        for (_, origin), env in builds.values():
            deadline = time.monotonic() + 60
            while quiet([origin, "status"], env) != 0:
                if time.monotonic() > deadline:
                    sys.exit(f"{origin}: the daemon did not answer within 60 s")
                time.sleep(0.2)
        times = {}
        for r in range(args.rounds + 2):  # two rounds to warm up
            for label, words in QUERIES:
                for name in (["A", "B"] if r % 2 == 0 else ["B", "A"]):
                    (_, origin), env = builds[name]
                    t = time.perf_counter()
                    quiet([origin, "search", *words, "--json"], env)
                    ms = (time.perf_counter() - t) * 1000
                    if r >= 2:
                        times.setdefault((name, label), []).append(ms)
    finally:
        for d in daemons:
            d.terminate()
        for d in daemons:
            d.wait()

    print(f"{'query':24} {'A ms':>8} {'B ms':>8} {'B/A':>6}")
    for label, _ in QUERIES:
        a = statistics.median(times[("A", label)])
        b = statistics.median(times[("B", label)])
        print(f"{label:24} {a:8.1f} {b:8.1f} {b / a:6.2f}")
    mix = {n: [t for (m, _), v in times.items() if m == n for t in v] for n in "AB"}
    a50, b50 = statistics.median(mix["A"]), statistics.median(mix["B"])
    print(f"p50 of the mix ({len(mix['A'])} processes each): A {a50:.1f} ms, B {b50:.1f} ms, "
          f"B/A {b50 / a50:.2f}")
    print(f"p99: A {percentile(mix['A'], 99):.1f} ms, B {percentile(mix['B'], 99):.1f} ms")


if __name__ == "__main__":
    main()
