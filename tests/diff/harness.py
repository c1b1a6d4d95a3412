"""
tests/diff/harness.py: sends the same request sequences to Apache Kafka and
to Gregor and compares the decoded answers field by field.

A case is a function of one broker, `b` (a Side): it sends requests with
b.req() (each recorded as a step: API, version, request, outcome, decoded
answer) and may use what a broker answered (its member ids, producer ids,
topic ids) in the requests that follow, as a client would. The runner calls
each case once for Kafka and once for Gregor, at the same time, each on its
own connections, then compares the two recordings step by step: the
outcome (an answer, no answer, a closed connection), then every field of
the answer, less what tests/diff/legit.py names. A step marked
deliberate=NAME is a difference Gregor makes on purpose
(docs/compatibility.md): the difference must be there, and each side must
answer as the step's expectations say, or the step fails.

Requests the case only needs for itself (waiting for a topic to be led, a
coordinator to load) go through b.q(), which records nothing: Kafka
does some things asynchronously (its metadata image follows its
controller) and such polls would only compare timing.
"""

import copy
import json
import re
import os
import socket
import struct
import threading
import time

import codec
from legit import LEGIT, UNORDERED, IGNORE, KIND, SELF, MEMBER, TIME, CREATED, CLOCK_TEXT
from deliberate import DELIBERATE

CASES = []


def case(name, timeout=60, alone=False):
    """Registers a case function under name; timeout bounds each side.
    alone: the case touches a resource every case shares (the group named
    ""), so it runs after the others, one at a time."""
    def reg(fn):
        CASES.append((name, fn, timeout, alone))
        return fn
    return reg


class CaseError(Exception):
    """A case's own expectation failed (its set-up did not work)."""


# --- one connection -------------------------------------------------------

# GR_DIFF_SOURCE: the local address connections come from (run.sh with
# DIFF_AUTHORIZER=1 sets 127.0.0.2, so ACLs can name the cases' host apart
# from the controller's 127.0.0.1); a connection may ask for another one
SOURCE = os.environ.get("GR_DIFF_SOURCE") or None


class Conn:
    def __init__(self, host, port, timeout=15, client_id="gregor-diff",
                 source=None):
        self.client_id = client_id
        src = source or SOURCE
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(src, 0) if src else None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.cid = 0
        self.closed = False

    def next_cid(self):
        self.cid += 1
        return self.cid

    def send(self, data):
        self.sock.sendall(data)

    def _readn(self, n, timeout):
        self.sock.settimeout(timeout)
        buf = b""
        while len(buf) < n:
            c = self.sock.recv(n - len(buf))
            if not c:
                self.closed = True
                raise EOFError
            buf += c
        return buf

    def recv(self, timeout):
        """The next response frame (without its size), or raises EOFError
        (closed) or socket.timeout."""
        n = struct.unpack(">i", self._readn(4, timeout))[0]
        return self._readn(n, timeout)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed = True


# --- one broker within one case -----------------------------------------

class Step:
    __slots__ = ("label", "key", "version", "request", "outcome", "resp",
                 "deliberate", "expect", "subset")

    def __init__(self, label, key, version, request, outcome, resp,
                 deliberate=None, expect=None, subset=False):
        self.subset = subset
        self.label = label
        self.key = key
        self.version = version
        self.request = request
        self.outcome = outcome
        self.resp = resp
        self.deliberate = deliberate
        self.expect = expect

    def api(self):
        if self.key == "note":
            return "note"
        return codec.api_name(self.key)


SERVED = {}  # "kafka"/"gregor" -> {api key: (min, max)}, from ApiVersions at start
COVERAGE = {}  # (side, api key, version) -> count of recorded steps
COVERAGE_LOCK = threading.Lock()


class Side:
    def __init__(self, name, host, port, case_name, store):
        self.name = name  # "kafka" or "gregor"
        self.host = host
        self.port = port
        self.case = case_name
        self.steps = []
        self.store = store  # shared per side across cases (coordinator warm-up)
        self._conn = None
        self.conns = []

    # connections
    def conn(self, client_id="gregor-diff", source=None):
        """A new connection of this case to this broker, its requests
        sent with client_id (a group's second member: another one, so
        that generated member ids tell the members apart), from source
        (a local address; default SOURCE)."""
        c = Conn(self.host, self.port, client_id=client_id, source=source)
        self.conns.append(c)
        return c

    def default_conn(self):
        if self._conn is None or self._conn.closed:
            self._conn = self.conn()
        return self._conn

    def close(self):
        for c in self.conns:
            c.close()

    def t(self, suffix=""):
        """A resource name of this case (topics, groups, transactional ids)."""
        return "%s-%s" % (self.case, suffix) if suffix else self.case

    # requests
    def req(self, api, version, body=None, label=None, conn=None, raw=None,
            timeout=15, no_response=False, deliberate=None, expect=None,
            record=True, filt=None):
        """Sends one request and returns the decoded answer (a dict), or
        None when there was none (the outcome says why: "closed",
        "timeout", "no response").

        api: a name or key; body: the request's fields (dict); raw: bytes
        of a body to send instead of encoding one (corrupt requests);
        no_response: the request expects none (acks=0), so the outcome is
        what a following short wait shows; deliberate/expect: a difference
        Gregor makes on purpose and what each side must answer
        (expect={"kafka": fn(step), "gregor": fn(step)}); filt: applied to
        the answer before it is recorded (to keep only this case's topics or
        groups of a broker-wide list); the unfiltered answer is returned."""
        h = self.start(api, version, body, conn=conn, raw=raw, label=label)
        return self.finish(h, timeout=timeout, no_response=no_response, deliberate=deliberate,
                           expect=expect, record=record, filt=filt)

    def start(self, api, version, body=None, conn=None, raw=None, label=None):
        """Sends a request without waiting for its answer (a JoinGroup that
        waits for the rest of the group); finish() reads and records it."""
        key = api if isinstance(api, int) else codec.api_key(api)
        c = conn or self.default_conn()
        cid = c.next_cid()
        body = body or {}
        try:
            if raw is not None:
                data = codec.frame(key, version, cid, raw, client_id=c.client_id)
            else:
                data = codec.encode_request(key, version, body, cid, client_id=c.client_id)
        except Exception as e:
            raise CaseError("cannot encode %s v%d %r: %s" % (
                codec.api_name(key), version, body, e))
        h = {"key": key, "version": version, "body": body, "raw": raw, "conn": c,
             "cid": cid, "label": label, "sent": False, "error": None}
        try:
            if not c.closed:
                c.send(data)
                h["sent"] = True
        except (ConnectionError, BrokenPipeError, OSError):
            c.close()
        return h

    def finish(self, h, timeout=15, no_response=False, deliberate=None, expect=None,
               record=True, filt=None):
        """Reads and records the answer of a request start() sent."""
        key, version, c, cid, raw = h["key"], h["version"], h["conn"], h["cid"], h["raw"]
        resp = None
        try:
            if not h["sent"]:
                outcome = "closed before sending"
            elif no_response:
                try:
                    c.recv(0.3)
                    outcome = "unexpected response"
                except socket.timeout:
                    outcome = "no response"
                except (EOFError, ConnectionError):
                    outcome = "closed"
            else:
                payload = c.recv(timeout)
                try:
                    rcid, resp = codec.decode_response(key, version, payload)
                    if rcid != cid:
                        outcome = "correlation id %d for %d" % (rcid, cid)
                    else:
                        outcome = "answer"
                except Exception as e:
                    outcome = "undecodable answer (%s): %s" % (e, payload[:64].hex())
                    resp = None
        except socket.timeout:
            outcome = "timeout after %ss" % timeout
            c.close()
        except (EOFError, ConnectionError, BrokenPipeError):
            outcome = "closed"
            c.close()
        if resp is not None:
            resp = self._expand_records(key, resp)
        if record:
            kept = resp
            if filt is not None and resp is not None:
                kept = filt(copy.deepcopy(resp))
            shown = ("%d raw bytes: %s" % (len(raw), raw[:48].hex())) if raw is not None else h["body"]
            self.steps.append(Step(h["label"] or codec.api_name(key), key, version, shown,
                                   outcome, kept, deliberate, expect))
            with COVERAGE_LOCK:
                k = (self.name, key, version)
                COVERAGE[k] = COVERAGE.get(k, 0) + 1
        self.last_outcome = outcome
        return resp

    def legacy(self, api, version, body, gregor=None, label=None, ref_body=None,
               filt=None, **kw):
        """A request at a version Kafka 4 removed and Gregor keeps
        (deliberate "legacy-versions"): Kafka must refuse it (close, or
        UNSUPPORTED_VERSION), Gregor answer it (and gregor(step) hold, if
        given). Kafka is then sent the same request (or ref_body) at its
        lowest version, and that answer is compared with Gregor's legacy
        one on the fields both versions have (after filt, if given, on
        both). Returns this broker's answer (Kafka's at its lowest
        version)."""
        from cases_versions import LEGACY_MIN
        key = api if isinstance(api, int) else codec.api_key(api)
        name = codec.api_name(key)
        ref = LEGACY_MIN[name]
        label = label or name
        expect = {"kafka": lambda s: s.outcome == "closed" or (
            s.resp is not None and s.resp.get("error_code") == 35),
            "gregor": lambda s: s.outcome == "answer" and (gregor is None or gregor(s))}
        r = self.req(key, version, body, label=label + " (legacy)", conn=self.conn(),
                     deliberate="legacy-versions", expect=expect, **kw)
        outcome = self.last_outcome
        if self.name == "kafka":
            r = self.req(key, ref, ref_body if ref_body is not None else body,
                         record=False, **kw)
            outcome = self.last_outcome
        kept = copy.deepcopy(r)
        if filt is not None and kept is not None:
            kept = filt(kept)
        self.steps.append(Step("%s v%d beside Kafka's v%d" % (label, version, ref), key, version,
                               body, outcome, kept, subset=True))
        return r

    def q(self, api, version, body=None, **kw):
        """req() that records nothing (a case's own polling and set-up)."""
        kw["record"] = False
        return self.req(api, version, body, **kw)

    def note(self, label, value, deliberate=None, expect=None):
        """Records a value the case derived (what a consumer saw) so that
        it is compared like an answer."""
        self.steps.append(Step(label, "note", 0, None, "note", {"value": value},
                               deliberate, expect))

    def served(self, side=None):
        """{api key: (min, max)} a broker advertised at the start."""
        return SERVED[side or self.name]

    def until(self, api, version, body, pred, timeout=10.0, label=None, **kw):
        """Repeats a request (unrecorded) until pred(answer) holds, then
        records that answer; after timeout the last answer is recorded
        as it is (and will show the difference)."""
        deadline = time.time() + timeout
        while True:
            r = self.q(api, version, body, **kw)
            if r is not None and pred(r):
                break
            if time.time() > deadline:
                break
            time.sleep(0.05)
        return self.req(api, version, body, label=label, **kw)

    def wait(self, api, version, body, pred, timeout=10.0, what="", **kw):
        """Repeats a request (unrecorded) until pred(answer) holds; raises
        CaseError after timeout."""
        deadline = time.time() + timeout
        r = None
        while time.time() < deadline:
            r = self.q(api, version, body, **kw)
            if r is not None and pred(r):
                return r
            time.sleep(0.05)
        raise CaseError("%s: %s not reached in %ss; last %s: %r" % (
            self.name, what or codec.api_name(api if isinstance(api, int) else codec.api_key(api)),
            timeout, self.last_outcome, r))

    @staticmethod
    def _expand_records(key, resp):
        # Fetch: the record set as batches and records, so it is compared
        # field by field (and a difference names the batch and field)
        if key == 1:
            for t in resp.get("responses") or []:
                for p in t.get("partitions") or []:
                    if p.get("records") is not None:
                        batches, cut = codec.read_records(p["records"])
                        p["records"] = {"batches": batches, "cut_bytes": cut}
        return resp


# --- comparing two answers --------------------------------------------------

_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_ZERO_UUID = "00000000-0000-0000-0000-000000000000"


_RULE_RE = {}


def _rule_regex(r_path):
    """A rule's path as a regex on the end of a field path: "[]" is any
    element, "[name=x]" the element whose key field name is x."""
    rx = _RULE_RE.get(r_path)
    if rx is None:
        parts = re.split(r"(\[[^\]]*\])", r_path)
        out = ""
        for part in parts:
            if part == "[]":
                out += r"\[[^\]]*\]"
            elif part.startswith("["):
                out += r"\[(?:\d+:)?" + re.escape(part[1:-1]).replace(r"\*", "[^\]]*") + r"\]"
            else:
                out += re.escape(part)
        rx = _RULE_RE[r_path] = re.compile(r"(?:^|\.)" + out + "$")
    return rx


def _rule_for(api, path, label=None):
    """The most specific LEGIT rule for a field path of an API's answer (a
    rule's api may be "API:step label" for one step's answer)."""
    best = None
    for r_api, r_path, how, reason in LEGIT:
        if isinstance(how, tuple):
            continue  # an array's order, not a field
        a, _, lab = r_api.partition(":")
        if a not in ("*", api) or (lab and lab != label):
            continue
        if _rule_regex(r_path).search(path):
            score = (bool(lab), a == api, len(r_path))
            if best is None or score > best[0]:
                best = (score, (r_api, r_path, how, reason))
    return best[1] if best else None


def _unordered_key(api, path):
    for r_api, r_path, how, reason in LEGIT:
        if isinstance(how, tuple) and how[0] == UNORDERED and r_api == api \
                and _rule_regex(r_path).search(path):
            return how[1:]
    return None


def kind(v):
    if v is None:
        return "null"
    if v == "" or v == b"" or v == []:
        return "empty"
    if v == 0 or v == _ZERO_UUID:
        return "zero"
    if isinstance(v, (int, float)) and v < 0:
        return v  # sentinels (-1) must agree
    return "set"


def normalize(how, v, side):
    if how == KIND:
        return kind(v)
    if how == TIME:
        if isinstance(v, int) and v < 0:
            return v
        return "set" if v is not None else None
    if how == SELF:
        if v == side.host or v == side.port or v == "/" + side.host or v == side.host + ":%d" % side.port:
            return "<self>"
        if isinstance(v, str) and v.startswith("/" + side.host):
            return "<self>"
        return v
    if how == CLOCK_TEXT:
        return re.sub(r"\b1\d{12}\b", "<ms>", v) if isinstance(v, str) else v
    if how == CREATED:
        return "being created" if v in (0, 3, 5) else v
    if how == MEMBER:
        if isinstance(v, str):
            return _UUID_RE.sub("<uuid>", v)
        return v
    return v


def _elem_label(e, i):
    if isinstance(e, dict):
        if "magic" in e and "attributes" in e and e["attributes"] & 0x20:
            return "%d:control" % i  # a control batch (commit or abort marker)
        for k in ("name", "topic", "partition_index", "partition", "group_id",
                  "transactional_id", "resource_name", "api_key", "index",
                  "key", "config_name", "member_id", "producer_id"):
            if k in e and not isinstance(e[k], (dict, list)):
                return "%d:%s=%s" % (i, k, e[k])
    return str(i)


def compare(api, a, b, ka, kb, path="", label=None, subset=False):
    """Differences between a (Kafka's) and b (Gregor's) as a list of
    (path, kafka value, gregor value). ka/kb: the two Sides (SELF);
    label: the step's; subset: compare only the fields both have (a
    legacy version's answer beside Kafka's lowest version's)."""
    out = []
    rule = _rule_for(api, path, label) if path else None
    if rule and rule[2] == IGNORE:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a.keys()) + [k for k in b.keys() if k not in a]:
            p = "%s.%s" % (path, k) if path else k
            if k not in a:
                if not subset:
                    out.append((p, "<absent>", b[k]))
            elif k not in b:
                if not subset:
                    out.append((p, a[k], "<absent>"))
            else:
                out += compare(api, a[k], b[k], ka, kb, p, label, subset)
        return out
    if isinstance(a, list) and isinstance(b, list) and (
            any(isinstance(e, (dict, list)) for e in a + b)):
        keys = _unordered_key(api, path)
        if keys:
            # no order: elements are matched by their key fields
            # (key fields that legitimately differ, a topic id, are matched
            # by their normalized values)
            def sk(e, side):
                if not isinstance(e, dict):
                    return (str(e),)
                out_k = []
                for k in keys:
                    r = _rule_for(api, "%s[].%s" % (path, k), label)
                    v = e.get(k)
                    out_k.append(str(normalize(r[2], v, side) if r and r[2] != IGNORE else v))
                return tuple(out_k)
            da, db = {}, {}
            for e in a:
                da.setdefault(sk(e, ka), []).append(e)
            for e in b:
                db.setdefault(sk(e, kb), []).append(e)
            ign = lambda k, d: (_rule_for(api, "%s[%s]" % (path, _elem_label(d[k][0], 0)[2:]), label)
                                or (0, 0, None))[2] == IGNORE
            only_a = [k for k in sorted(da) if k not in db and not ign(k, da)]
            only_b = [k for k in sorted(db) if k not in da and not ign(k, db)]
            if only_a or only_b:
                fmt = lambda ks: ", ".join("/".join(k) for k in ks)[:900]
                out.append((path + "[] (elements by %s)" % "/".join(keys),
                            "%d, only Kafka's: %s" % (len(a), fmt(only_a) or "none"),
                            "%d, only Gregor's: %s" % (len(b), fmt(only_b) or "none")))
            for k in sorted(da):
                if k not in db:
                    continue
                ea, eb = da[k], db[k]
                if len(ea) != len(eb):
                    out.append(("%s[%s] (count)" % (path, "/".join(k)), len(ea), len(eb)))
                if len(ea) > 1:
                    # several elements whose keys normalize alike (producer
                    # ids): paired in the order of their own key values
                    raw = lambda e: tuple(str(e.get(k)) for k in keys)
                    ea, eb = sorted(ea, key=raw), sorted(eb, key=raw)
                for x, y in zip(ea, eb):
                    out += compare(api, x, y, ka, kb, "%s[%s]" % (path, _elem_label(x, 0)[2:]),
                                   label, subset)
            return out
        if len(a) != len(b):
            la = [_elem_label(e, i) for i, e in enumerate(a)]
            lb = [_elem_label(e, i) for i, e in enumerate(b)]
            out.append((path + "[] (count)", "%d: %s" % (len(a), ", ".join(la)[:600]),
                        "%d: %s" % (len(b), ", ".join(lb)[:600])))
            # still compare what lines up by label, to show field differences
            n = min(len(a), len(b))
        else:
            n = len(a)
        for i in range(n):
            out += compare(api, a[i], b[i], ka, kb, "%s[%s]" % (path, _elem_label(a[i], i)),
                           label, subset)
        return out
    if (isinstance(a, list) and isinstance(b, list) and a != b and not rule
            and len(a) + len(b) > 8):
        # long lists of names: say which are missing on each side
        sa, sb = [str(x) for x in a], [str(x) for x in b]
        oa = [x for x in sa if x not in set(sb)]
        ob = [x for x in sb if x not in set(sa)]
        if oa or ob:
            out.append((path + " (elements)", "%d, only Kafka's: %s" % (len(a), ", ".join(oa) or "none"),
                        "%d, only Gregor's: %s" % (len(b), ", ".join(ob) or "none")))
        else:
            out.append((path + " (order)", a, b))
        return out
    if rule:
        na, nb = normalize(rule[2], a, ka), normalize(rule[2], b, kb)
    else:
        na, nb = a, b
    if na != nb:
        out.append((path, a, b))
    return out


def _short(v, n=300):
    if isinstance(v, str) and ", only " in v[:16]:
        n = 4000  # what only one side has: shown whole
    s = repr(v) if not isinstance(v, str) else json.dumps(v)
    return s if len(s) <= n else s[:n] + "..."


def compare_steps(ks, gs, kside, gside):
    """Differences between two step lists: a list of report lines, a
    list of the deliberate differences seen, and the count of steps
    compared."""
    fails = []
    seen = []
    n = min(len(ks), len(gs))
    for i in range(n):
        k, g = ks[i], gs[i]
        api = k.api()
        head = "step %d %s (%s v%d)" % (i + 1, k.label, api, k.version)
        if (k.key, k.version, k.label) != (g.key, g.version, g.label):
            fails.append("%s: the sequences part here: Gregor's step is %s (%s v%d)" % (
                head, g.label, g.api(), g.version))
            break
        diffs = []
        if k.outcome != g.outcome:
            diffs.append(("<outcome>", k.outcome, g.outcome))
        elif k.resp is not None or g.resp is not None:
            diffs = compare(api, k.resp, g.resp, kside, gside, label=k.label,
                            subset=k.subset or g.subset)
        if k.deliberate:
            if k.deliberate not in DELIBERATE:
                fails.append("%s: deliberate difference %s is not in deliberate.py" % (
                    head, k.deliberate))
                continue
            ok_k = k.expect["kafka"](k) if k.expect and "kafka" in k.expect else True
            ok_g = g.expect["gregor"](g) if g.expect and "gregor" in g.expect else True
            if not diffs:
                fails.append("%s: deliberate difference %s not seen: both answer %s %s" % (
                    head, k.deliberate, k.outcome, _short(k.resp)))
            elif not (ok_k and ok_g):
                fails.append("%s: deliberate difference %s not as pinned: request %s\n"
                             "    Kafka:  %s %s\n    Gregor: %s %s" % (
                                 head, k.deliberate, _short(k.request), k.outcome,
                                 _short(k.resp, 600), g.outcome, _short(g.resp, 600)))
            else:
                seen.append(k.deliberate)
            continue
        if diffs:
            lines = ["%s: request %s" % (head, _short(k.request, 400))]
            for p, kv, gv in diffs[:40]:
                lines.append("    %s: Kafka %s, Gregor %s" % (p, _short(kv), _short(gv)))
            if len(diffs) > 40:
                lines.append("    ... %d more" % (len(diffs) - 40))
            fails.append("\n".join(lines))
    if len(ks) != len(gs) and not (fails and "part here" in fails[-1]):
        longer, who = (ks, "Kafka") if len(ks) > len(gs) else (gs, "Gregor")
        extra = ", ".join("%s (%s v%d)" % (s.label, s.api(), s.version) for s in longer[n:n + 5])
        fails.append("step counts differ: Kafka %d, Gregor %d; %s's next: %s" % (
            len(ks), len(gs), who, extra))
    return fails, seen, n

