"""compat/acl/acl_common.py: what the ACL scenarios' Python clients share:
check(), and how they log in as a principal. DIR is compat/acl/certs.sh's (mTLS: DIR/<name>.pem, the
principal User:CN=<name>) or acl_sasl_props's (SASL: DIR/<name>.properties,
the Java clients' settings, User:<name>)."""


def mtls(d):
    import os
    return os.path.exists(d + "/admin.pem")


def prefix(d):
    """The principals' prefix: User:CN= or User:."""
    return "User:CN=" if mtls(d) else "User:"


def sasl(d, name):
    """DIR/<name>.properties: (mechanism, user, password)."""
    p = {}
    with open("%s/%s.properties" % (d, name)) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            p[k] = v
    jaas = dict(w.strip('";').split('="', 1) for w in
                p["sasl.jaas.config"].split() if '="' in w)
    return p["sasl.mechanism"], jaas["username"], jaas["password"]


fails = 0


def check(what, ok, detail=""):
    """Prints "# ok: WHAT" or "FAIL: WHAT DETAIL" (counted in fails)."""
    global fails
    if ok:
        print("# ok: " + what, flush=True)
    else:
        fails += 1
        print("FAIL: %s %s" % (what, detail), flush=True)
