#!/usr/bin/python3
"""Keys, a JWKS file and JWTs for the OAUTHBEARER scenarios, made with
python3-cryptography (Debian's; the signer is independent of the broker's
OpenSSL code that verifies).

    tokens.py keys DIR              RSA 2048 (kid r1, RS256) and EC P-256
                                    (kid e1, ES256) keys: DIR/r1.pem,
                                    DIR/e1.pem, DIR/jwks.json
    tokens.py rotate DIR            a third key (kid e2) into jwks.json
    tokens.py sign DIR KID [C=V]... a token signed with DIR/KID.pem
    tokens.py forge DIR KID [C=V]...  signed with a fresh key, header kid KID
    tokens.py none [C=V]...         an unsecured (alg none) token

Claims default to sub=alice iss=https://issuer.example aud=kafka iat=now
exp=now+3600; C=V sets one (a value +N or -N is now+N seconds for exp, iat
and nbf; C= removes the claim)."""

import base64
import json
import os
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils


def b64(x):
    return base64.urlsafe_b64encode(x).rstrip(b"=").decode()


def n2b(n, size=None):
    return n.to_bytes(size or (n.bit_length() + 7) // 8, "big")


def new_key(kid):
    if kid.startswith("r"):
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def jwk(kid, key):
    pub = key.public_key().public_numbers()
    if kid.startswith("r"):
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                "n": b64(n2b(pub.n)), "e": b64(n2b(pub.e))}
    return {"kty": "EC", "kid": kid, "use": "sig", "crv": "P-256",
            "x": b64(n2b(pub.x, 32)), "y": b64(n2b(pub.y, 32))}


def save(d, kid, key):
    with open(os.path.join(d, kid + ".pem"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))


def load(d, kid):
    with open(os.path.join(d, kid + ".pem"), "rb") as f:
        return serialization.load_pem_private_key(f.read(), None)


def write_jwks(d, kids):
    keys = [jwk(k, load(d, k)) for k in kids]
    tmp = os.path.join(d, "jwks.json.tmp")
    with open(tmp, "w") as f:
        json.dump({"keys": keys}, f)
    os.replace(tmp, os.path.join(d, "jwks.json"))


def claims(args, now=None):
    now = int(now or time.time())
    c = {"sub": "alice", "iss": "https://issuer.example", "aud": "kafka",
         "iat": now, "exp": now + 3600}
    for a in args:
        k, v = a.split("=", 1)
        if v == "":
            c.pop(k, None)
        elif k in ("exp", "iat", "nbf") and v[0] in "+-":
            c[k] = now + int(v)
        elif v[0] in "[{":
            c[k] = json.loads(v)
        else:
            c[k] = v
    return c


def sign(key, kid, c):
    alg = "RS256" if kid.startswith("r") else "ES256"
    inp = (b64(json.dumps({"alg": alg, "typ": "JWT", "kid": kid}).encode())
           + "." + b64(json.dumps(c).encode()))
    if alg == "RS256":
        sig = key.sign(inp.encode(), padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = utils.decode_dss_signature(
            key.sign(inp.encode(), ec.ECDSA(hashes.SHA256())))
        sig = n2b(r, 32) + n2b(s, 32)
    return inp + "." + b64(sig)


def main(argv):
    cmd = argv[1]
    if cmd == "keys":
        d = argv[2]
        for kid in ("r1", "e1"):
            save(d, kid, new_key(kid))
        write_jwks(d, ["r1", "e1"])
    elif cmd == "rotate":
        d = argv[2]
        save(d, "e2", new_key("e2"))
        write_jwks(d, ["r1", "e1", "e2"])
    elif cmd in ("sign", "forge"):
        d, kid = argv[2], argv[3]
        key = load(d, kid) if cmd == "sign" else new_key(kid)
        print(sign(key, kid, claims(argv[4:])))
    elif cmd == "none":
        c = claims(argv[2:])
        print(b64(b'{"alg":"none"}') + "." + b64(json.dumps(c).encode()) + ".")
    else:
        sys.exit("tokens.py: unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
