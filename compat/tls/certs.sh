#!/bin/sh
# compat/tls/certs.sh DIR: a CA, a server certificate for 127.0.0.1 and
# localhost, a client certificate (CN=client,OU=test,O=Gregor), a second
# CA and a client certificate signed by it (untrusted), as PEM, PKCS12
# (password "secret") and a PEM key encrypted with "keypass". Short-lived
# (2 days), made fresh by each run.
set -e
d=$1
mkdir -p "$d"
cd "$d"
q() { "$@" >/dev/null 2>&1; }
mkca() {
    q openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" \
        -out "$1.pem" -days 2 -subj "/CN=$2" \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign
}
mkcert() { # name ca subject [ext]
    q openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "$3"
    printf '%s\n' "${4:-basicConstraints=CA:FALSE}" > "$1.ext"
    q openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" \
        -CAcreateserial -out "$1.pem" -days 2 -extfile "$1.ext"
}
mkca ca "Gregor test CA"
mkca otherca "Other CA"
mkcert server ca "/CN=localhost/O=Gregor" \
    "subjectAltName=DNS:localhost,IP:127.0.0.1"
mkcert client ca "/O=Gregor/OU=test/CN=client"
mkcert stranger otherca "/CN=stranger"
# a PEM keystore: the key (encrypted with keypass) then the chain
q openssl pkey -in server.key -aes256 -passout pass:keypass -out server.enc.key
cat server.enc.key server.pem ca.pem > server.keystore.pem
q openssl pkcs12 -export -in server.pem -inkey server.key -certfile ca.pem \
    -name server -passout pass:secret -out server.p12
q openssl pkcs12 -export -nokeys -in ca.pem -passout pass:secret \
    -out truststore.p12
q openssl pkcs12 -export -in client.pem -inkey client.key \
    -passout pass:secret -out client.p12
# a JKS magic, enough for the start-up refusal
printf '\376\355\376\355\000\000\000\002' > server.jks
