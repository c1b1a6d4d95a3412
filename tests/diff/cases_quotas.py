"""
tests/diff/cases_quotas.py: client quotas (DescribeClientQuotas,
AlterClientQuotas), every version: entities of users, client-ids, both
and IPs, named and <default>; every refusal of Kafka's controller and of
its describe filter; exact, default and any matches, strict or not.

Kafka applies quota changes through its metadata log: the case waits
(unrecorded) until a change is visible before it records the describe.
Entities are this case's own (diffq-*); the <default> ones hold rates no
other case comes near, and go at the end. Both brokers answer in the
order of a Java HashMap (Kafka) or of creation (Gregor): entries are
sorted before they are compared (docs/compatibility.md, client quotas).
"""

import time

from harness import case


def _ent(e):
    return sorted((x["entity_type"], x["entity_name"] or "") for x in e)


def _sorted_alter(r):
    out = dict(r)
    out["entries"] = sorted(
        ({**x, "entity": sorted(x["entity"], key=lambda y: y["entity_type"])}
         for x in r["entries"]),
        key=lambda x: _ent(x["entity"]))
    return out


def _ours(e):
    return any((x["entity_name"] or "").startswith("diffq") or
               x["entity_name"] is None for x in e["entity"])


def _sorted_describe(r):
    out = dict(r)
    if r.get("entries") is not None:
        out["entries"] = sorted(
            ({"entity": sorted(x["entity"], key=lambda y: y["entity_type"]),
              "values": sorted(x["values"], key=lambda y: y["key"])}
             for x in r["entries"] if _ours(x)),
            key=lambda x: _ent(x["entity"]))
    return out


def E(*kv):
    return [{"entity_type": kv[i], "entity_name": kv[i + 1]}
            for i in range(0, len(kv), 2)]


def S(key, value):
    return {"key": key, "value": float(value), "remove": False}


def R(key):
    return {"key": key, "value": 0.0, "remove": True}


def C(t, match_type, match=None):
    return {"entity_type": t, "match_type": match_type, "match": match}


def _alter(b, v, label, entries, validate_only=False):
    b.req("AlterClientQuotas", v, {"entries": entries, "validate_only": validate_only},
          label=label, filt=_sorted_alter)


def _describe(b, v, label, comps, strict=False):
    b.req("DescribeClientQuotas", v, {"components": comps, "strict": strict},
          label=label, filt=_sorted_describe)


def _wait(b, v, count):
    """Until this case's entities number count (unrecorded)."""
    for _ in range(100):
        r = b.req("DescribeClientQuotas", v, {"components": [], "strict": False},
                  record=False)
        if r is not None and r.get("entries") is not None and \
                len([e for e in r["entries"] if _ours(e)]) == count:
            return
        time.sleep(0.1)


@case("client_quotas")
def client_quotas(b):
    for v in (0, 1):
        u, c = "diffq-u%d" % v, "diffq-c%d" % v
        _alter(b, v, "set v%d" % v, [
            {"entity": E("user", u), "ops": [S("producer_byte_rate", 1e12),
                                             S("request_percentage", 1e6)]},
            {"entity": E("user", u, "client-id", c),
             "ops": [S("consumer_byte_rate", 1e12)]},
            {"entity": E("client-id", c), "ops": [S("controller_mutation_rate", 1e9)]},
            {"entity": E("ip", "10.9.9.%d" % v), "ops": [S("connection_creation_rate", 100)]},
            {"entity": E("user", u, "client-id", None),
             "ops": [S("producer_byte_rate", 1e12)]},
        ])
        _alter(b, v, "refused v%d" % v, [
            {"entity": E("user", "diffq-x"), "ops": [S("bogus", 1)]},
            {"entity": E("user", "diffq-y"), "ops": [S("producer_byte_rate", 0)]},
            {"entity": E("user", "diffq-z"), "ops": [S("producer_byte_rate", 2.5)]},
            {"entity": E("client-id", "diffq-w"), "ops": [S("request_percentage", -3)]},
            {"entity": E("user", ""), "ops": [S("producer_byte_rate", 5)]},
            {"entity": E("group", "diffq-g"), "ops": [S("producer_byte_rate", 5)]},
            {"entity": [], "ops": [S("producer_byte_rate", 5)]},
            {"entity": E("ip", "10.9.9.9", "user", "diffq-i"),
             "ops": [S("connection_creation_rate", 5)]},
            {"entity": E("ip", "10.9.9.8"), "ops": [S("producer_byte_rate", 5)]},
            {"entity": E("ip", "10.9.9.7"), "ops": [S("connection_creation_rate", 3e9)]},
            {"entity": E("user", "diffq-k"), "ops": [S("producer_byte_rate", 5),
                                                     S("producer_byte_rate", 6)]},
            {"entity": E("user", "diffq-d", "client-id", "diffq-e"),
             "ops": [S("producer_byte_rate", 1e12)]},
            {"entity": E("client-id", "diffq-e", "user", "diffq-d"),
             "ops": [S("consumer_byte_rate", 1e12)]},
            {"entity": E("user", "diffq-gone"), "ops": [R("producer_byte_rate"),
                                                        R("bogus")]},
        ])
        _alter(b, v, "validate only v%d" % v, [
            {"entity": E("user", "diffq-vo%d" % v), "ops": [S("producer_byte_rate", 5)]},
            {"entity": E("user", "diffq-vo%d" % v, "client-id", "x"),
             "ops": [S("producer_byte_rate", 0)]},
        ], validate_only=True)
    # the defaults, rates no client reaches
    _alter(b, 1, "defaults", [
        {"entity": E("user", None), "ops": [S("controller_mutation_rate", 1e9)]},
        {"entity": E("client-id", None), "ops": [S("consumer_byte_rate", 1e15)]},
        {"entity": E("user", None, "client-id", None),
         "ops": [S("request_percentage", 1e6)]},
        {"entity": E("ip", None), "ops": [S("connection_creation_rate", 1e9)]},
    ])
    # v0 and v1's five each, diffq-d + diffq-e, the four defaults
    _wait(b, 1, 15)
    for v in (0, 1):
        _describe(b, v, "all v%d" % v, [])
        _describe(b, v, "strict nothing v%d" % v, [], strict=True)
        _describe(b, v, "exact user v%d" % v, [C("user", 0, "diffq-u0")])
        _describe(b, v, "exact user strict v%d" % v, [C("user", 0, "diffq-u0")], strict=True)
        _describe(b, v, "default user v%d" % v, [C("user", 1)])
        _describe(b, v, "any user strict v%d" % v, [C("user", 2)], strict=True)
        _describe(b, v, "user and client v%d" % v, [C("user", 0, "diffq-u1"),
                                                    C("client-id", 2)])
        _describe(b, v, "default both v%d" % v, [C("user", 1), C("client-id", 1)], strict=True)
        _describe(b, v, "any ip v%d" % v, [C("ip", 2)])
        _describe(b, v, "default ip v%d" % v, [C("ip", 1)])
        _describe(b, v, "no such user v%d" % v, [C("user", 0, "diffq-none")])
        # refused filters
        _describe(b, v, "empty type v%d" % v, [C("", 2)])
        _describe(b, v, "twice v%d" % v, [C("user", 2), C("user", 1)])
        _describe(b, v, "unknown type v%d" % v, [C("group", 2)])
        _describe(b, v, "exact null v%d" % v, [C("user", 0)])
        _describe(b, v, "default with match v%d" % v, [C("user", 1, "x")])
        _describe(b, v, "any with match v%d" % v, [C("user", 2, "x")])
        _describe(b, v, "unknown match v%d" % v, [C("user", 5)])
        _describe(b, v, "ip with user v%d" % v, [C("ip", 2), C("user", 2)])
    # everything of this case goes
    entries = []
    for v in (0, 1):
        u, c = "diffq-u%d" % v, "diffq-c%d" % v
        entries += [
            {"entity": E("user", u), "ops": [R("producer_byte_rate"),
                                             R("request_percentage")]},
            {"entity": E("user", u, "client-id", c), "ops": [R("consumer_byte_rate")]},
            {"entity": E("client-id", c), "ops": [R("controller_mutation_rate")]},
            {"entity": E("ip", "10.9.9.%d" % v), "ops": [R("connection_creation_rate")]},
            {"entity": E("user", u, "client-id", None), "ops": [R("producer_byte_rate")]},
        ]
    entries += [
        {"entity": E("user", "diffq-d", "client-id", "diffq-e"),
         "ops": [R("producer_byte_rate")]},
        {"entity": E("user", None), "ops": [R("controller_mutation_rate")]},
        {"entity": E("client-id", None), "ops": [R("consumer_byte_rate")]},
        {"entity": E("user", None, "client-id", None), "ops": [R("request_percentage")]},
        {"entity": E("ip", None), "ops": [R("connection_creation_rate")]},
    ]
    _alter(b, 1, "removed", entries)
    _wait(b, 1, 0)
    _describe(b, 1, "all gone", [])
