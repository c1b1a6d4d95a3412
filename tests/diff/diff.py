"""
tests/diff/diff.py: runs every differential case against Kafka and Gregor
and reports in TAP, one line per case, then one for the coverage of every
API and version Gregor serves. Started by tests/diff/run.sh, which starts
both brokers.

    diff.py --kafka HOST:PORT --gregor HOST:PORT [--jobs N] [--only REGEX]
            [--report FILE] [--verbose]

Exit status: 0 when every case matched (less the named exceptions and the
pinned deliberate differences) and every served version was covered.
"""

import argparse
import collections
import json
import os
import re
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import codec  # noqa: E402
import harness  # noqa: E402
from harness import Side, compare_steps, CASES, COVERAGE  # noqa: E402

import cases_versions  # noqa: E402,F401
import cases_topics  # noqa: E402,F401
import cases_data  # noqa: E402,F401
import cases_groups  # noqa: E402,F401
import cases_txn  # noqa: E402,F401
import cases_admin  # noqa: E402,F401
import cases_clients  # noqa: E402,F401
import cases_quotas  # noqa: E402,F401
import cases_consumer_groups  # noqa: E402,F401
import cases_acl  # noqa: E402,F401


def hostport(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)


def run_side(side, fn, result, timeout):
    def body():
        try:
            fn(side)
        except harness.CaseError as e:
            side.steps.append(harness.Step("case error", "note", 0, None, "case error",
                                           {"value": str(e)}))
        except Exception as e:
            side.steps.append(harness.Step("exception", "note", 0, None, "exception",
                                           {"value": "%s: %s" % (type(e).__name__, e),
                                            "trace": traceback.format_exc()[-1500:]}))
        finally:
            side.close()
    t = threading.Thread(target=body, daemon=True)
    t.start()
    result.append(t)


def run_case(name, fn, timeout, kafka, gregor, stores):
    ks = Side("kafka", kafka[0], kafka[1], name, stores["kafka"])
    gs = Side("gregor", gregor[0], gregor[1], name, stores["gregor"])
    t0 = time.time()
    threads = []
    run_side(ks, fn, threads, timeout)
    run_side(gs, fn, threads, timeout)
    for t in threads:
        t.join(max(0.1, timeout - (time.time() - t0)))
    hung = [s.name for s, t in zip((ks, gs), threads) if t.is_alive()]
    fails, seen, n = compare_steps(list(ks.steps), list(gs.steps), ks, gs)
    if hung:
        fails.append("did not finish in %d s: %s" % (timeout, ", ".join(hung)))
    for s in (ks, gs):
        for st in s.steps:
            if st.outcome in ("case error", "exception") and not any(
                    "exception" in f or "case error" in f for f in fails):
                fails.append("%s side: %s: %s" % (s.name, st.outcome, st.resp["value"]))
    return {"name": name, "fails": fails, "deliberate": seen, "compared": n,
            "kafka": ks.steps, "gregor": gs.steps, "seconds": time.time() - t0}


def served_versions(host, port):
    s = Side("probe", host, port, "probe", {})
    r = s.q(18, 3, {"client_software_name": "gregor-diff", "client_software_version": "1"})
    s.close()
    return {k["api_key"]: (k["min_version"], k["max_version"]) for k in r["api_keys"]}


def warm_up(side):
    """Kafka makes __consumer_offsets and __transaction_state on first
    use and answers COORDINATOR_NOT_AVAILABLE meanwhile: wait for both
    coordinators on both brokers before any case runs."""
    for ktype, key in ((0, "diff-warm-up"), (1, "diff-warm-up")):
        side.wait(10, 3, {"key": key, "key_type": ktype},
                  lambda r: r["error_code"] == 0, timeout=60,
                  what="coordinator of type %d" % ktype)
    side.wait(22, 4, {"transactional_id": "diff-warm-up", "transaction_timeout_ms": 60000},
              lambda r: r["error_code"] == 0, timeout=60, what="InitProducerId")
    side.close()


def step_json(st):
    def conv(v):
        if isinstance(v, bytes):
            return v.hex() if len(v) < 200 else v[:200].hex() + "..."
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items() if k != "trace"}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v
    return {"label": st.label, "api": st.api(), "version": st.version,
            "request": conv(st.request), "outcome": st.outcome, "answer": conv(st.resp),
            "deliberate": st.deliberate}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kafka", required=True)
    ap.add_argument("--gregor", required=True)
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--only")
    ap.add_argument("--report")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    kafka, gregor = hostport(a.kafka), hostport(a.gregor)
    t0 = time.time()

    stores = {"kafka": {}, "gregor": {}}
    served = {"kafka": served_versions(*kafka), "gregor": served_versions(*gregor)}
    stores["kafka"]["served"] = served["kafka"]
    stores["gregor"]["served"] = served["gregor"]
    harness.SERVED.update(served)
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(warm_up, [Side("kafka", *kafka, "warm", stores["kafka"]),
                              Side("gregor", *gregor, "warm", stores["gregor"])]))
    print("# brokers ready in %.1f s (Kafka %s, Gregor %s)" % (
        time.time() - t0, a.kafka, a.gregor), flush=True)

    todo = [c for c in CASES if not a.only or re.search(a.only, c[0])]
    print("1..%d" % (len(todo) + (0 if a.only else 1)), flush=True)
    results = []
    n_fail = 0
    with ThreadPoolExecutor(a.jobs) as ex, ThreadPoolExecutor(1) as alone:
        futs = [ex.submit(run_case, name, fn, to, kafka, gregor, stores)
                for name, fn, to, one in todo if not one]
        later = [(name, fn, to) for name, fn, to, one in todo if one]
        for i, fu in enumerate(futs + [None] * len(later)):
            if fu is None:
                # the cases that must run alone, once the others are done
                name, fn, to = later.pop(0)
                fu = alone.submit(run_case, name, fn, to, kafka, gregor, stores)
            r = fu.result()
            results.append(r)
            status = "ok" if not r["fails"] else "not ok"
            if r["fails"]:
                n_fail += 1
            extra = ""
            if r["deliberate"]:
                extra = "; deliberate: " + ", ".join(sorted(set(r["deliberate"])))
            print("%s %d - %s (%d steps, %.1f s%s)" % (status, i + 1, r["name"], r["compared"],
                                                       r["seconds"], extra), flush=True)
            for f in r["fails"]:
                print("\n".join("#   " + line for line in f.split("\n")), flush=True)
            if a.verbose:
                for st in r["gregor"]:
                    print("#     %s %s v%d %s" % (st.label, st.api(), st.version, st.outcome))

    # coverage: every version Gregor serves was sent by some case
    if not a.only:
        missing = []
        for key, (lo, hi) in sorted(served["gregor"].items()):
            for v in range(lo, hi + 1):
                if not COVERAGE.get(("gregor", key, v)):
                    missing.append("%s v%d" % (codec.api_name(key), v))
        status = "ok" if not missing else "not ok"
        if missing:
            n_fail += 1
        print("%s %d - coverage of every API and version Gregor serves (%d APIs)" % (
            status, len(todo) + 1, len(served["gregor"])))
        if missing:
            print("#   not sent by any case: " + ", ".join(missing))

    # what was compared, per API
    per_api = collections.Counter()
    shapes = collections.defaultdict(set)
    for r in results:
        for st in r["kafka"][:r["compared"]]:
            if st.key == "note":
                continue
            per_api[st.api()] += 1
            shapes[st.api()].add((st.version, st.label))
    total = sum(per_api.values())
    nshapes = sum(len(v) for v in shapes.values())
    print("# compared %d answers of %d request shapes (API, version, request) over %d APIs:" % (
        total, nshapes, len(per_api)))
    for api in sorted(per_api, key=lambda x: codec.api_key(x)):
        print("#   %-28s %4d answers %4d shapes" % (api, per_api[api], len(shapes[api])))
    dl = collections.Counter(d for r in results for d in r["deliberate"])
    if dl:
        print("# deliberate differences seen: " + ", ".join(
            "%s (%d)" % (k, v) for k, v in sorted(dl.items())))
    failed = ["%s (%d)" % (r["name"], len(r["fails"])) for r in results if r["fails"]]
    if failed:
        print("# failed cases (steps that differ): " + ", ".join(failed))
        # again at the end, where a log's tail (compat/lib.sh keeps the
        # last 80 lines of a failed scenario) still has them
        for r in results:
            for f in r["fails"]:
                lines = f.split("\n")
                print("#   %s: %s" % (r["name"], "\n#     ".join(lines[:12])))
                if len(lines) > 12:
                    print("#     (%d more lines in the report)" % (len(lines) - 12))
    print("# %d of %d failed; %.1f s" % (n_fail, len(todo) + (0 if a.only else 1), time.time() - t0))
    if a.report:
        with open(a.report, "w") as fp:
            json.dump([{"name": r["name"], "fails": r["fails"],
                        "kafka": [step_json(s) for s in r["kafka"]],
                        "gregor": [step_json(s) for s in r["gregor"]]} for r in results],
                      fp, indent=1, default=str)
    sys.exit(1 if n_fail else 0)


if __name__ == "__main__":
    main()
