#!/bin/sh
# compat/acl/certs.sh DIR: a CA, a server certificate for 127.0.0.1 and
# localhost, and one client certificate per principal of the ACL scenarios
# (CN=admin, producer, consumer, txn, other, ops: principals User:CN=<name>
# under ssl.principal.mapping.rules=DEFAULT), as PEM and PKCS12 (password
# "secret", for the Java clients), with a PKCS12 truststore. Short-lived
# (2 days), made fresh by each run.
set -e
d=$1
mkdir -p "$d"
d=$(cd "$d" && pwd)
cd "$d"
q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
    -days 2 -subj "/CN=Gregor ACL test CA" \
    -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign
mkcert() { # name subject ext
    q openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "$2"
    printf '%s\n' "$3" > "$1.ext"
    q openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key \
        -CAcreateserial -out "$1.pem" -days 2 -extfile "$1.ext"
    q openssl pkcs12 -export -in "$1.pem" -inkey "$1.key" -certfile ca.pem \
        -name "$1" -passout pass:secret -out "$1.p12"
}
mkcert server "/CN=localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1"
for n in admin producer consumer txn other ops; do
    mkcert "$n" "/CN=$n" "basicConstraints=CA:FALSE"
done
q openssl pkcs12 -export -nokeys -in ca.pem -passout pass:secret \
    -out truststore.p12
# the Java clients' and Kafka's tools' settings, one file per principal
# (Java reads no trusted entry from an OpenSSL PKCS12 truststore: PEM)
for n in admin producer consumer txn other ops; do
    cat > "$n.properties" <<EOP
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$d/ca.pem
ssl.keystore.type=PKCS12
ssl.keystore.location=$d/$n.p12
ssl.keystore.password=secret
ssl.key.password=secret
EOP
done
