/*
 * SCRAM (RFC 5802, RFC 7677) for SASL/SCRAM-SHA-256 and -512: the
 * message parsers, the keys and signatures (OpenSSL's HMAC and digests),
 * and the credentials store that DescribeUserScramCredentials and
 * AlterUserScramCredentials manage.
 *
 * Credentials are kept as Kafka keeps them (its UserScramCredentialRecord):
 * per user and mechanism the salt, the iteration count, StoredKey =
 * H(HMAC(SaltedPassword, "Client Key")) and ServerKey =
 * HMAC(SaltedPassword, "Server Key"); never the password. They live in
 * <log.dirs>/gregor-configs/scram-credentials, written whole after each
 * change (temporary file, fsync, rename, fsync of the directory) on a
 * worker: a change is made on a copy, written, and counts for logins and
 * is answered once it is durable (AlterUserScramCredentials through
 * api/change.h). One line per credential:
 *
 *   <mechanism> <iterations> <salt> <stored key> <server key> <user>
 *
 * all but the first two in base64. Loop thread only.
 */
#ifndef GR_NET_SCRAM_H
#define GR_NET_SCRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_req gr_req_t;

/* Kafka's ScramMechanism types (AlterUserScramCredentials' Mechanism). */
#define GR_SCRAM_SHA_256        1
#define GR_SCRAM_SHA_512        2
#define GR_SCRAM_MIN_ITERATIONS 4096
#define GR_SCRAM_MAX_ITERATIONS 16384
#define GR_SCRAM_MAX_HASH       64

/* The mechanism's name ("SCRAM-SHA-256"), NULL when type is unknown. */
const char *gr_scram_mech_name(int type);
/* The digest length of type (32, 64), 0 when unknown. */
size_t gr_scram_hash_len(int type);

/* --- keys (RFC 5802 section 3) */
/* PBKDF2 (Hi) of password: out gets hash_len bytes. 0 or -1. */
int gr_scram_salted_password(int type, const char *password, size_t plen,
                             const uint8_t *salt, size_t slen, int iterations,
                             uint8_t *out);
/* HMAC(key, data) into out (hash_len bytes). 0 or -1. */
int gr_scram_hmac(int type, const uint8_t *key, size_t klen, const void *data,
                  size_t dlen, uint8_t *out);
/* H(data) into out. 0 or -1. */
int gr_scram_hash(int type, const void *data, size_t dlen, uint8_t *out);
/* StoredKey and ServerKey of a salted password. 0 or -1. */
int gr_scram_keys(int type, const uint8_t *salted, uint8_t *stored_key,
                  uint8_t *server_key);

/* --- messages */
typedef struct gr_scram_client_first {
    const char *bare; /* client-first-message-bare, from "n=" */
    size_t bare_len;
    char user[256];    /* saslname decoded (=2C ',' =3D '=') */
    char authzid[256]; /* "" when none */
    const char *nonce;
    size_t nonce_len;
    bool tokenauth; /* extension tokenauth=true (delegation tokens) */
} gr_scram_client_first_t;
/* Parses a client-first-message as Kafka's ClientFirstMessage; pointers
 * into in. 0, or -1 with the reason in err. */
int gr_scram_parse_client_first(const uint8_t *in, size_t len,
                                gr_scram_client_first_t *m, char *err,
                                size_t n);

typedef struct gr_scram_client_final {
    const char *without_proof; /* "c=...,r=..." up to ",p=" */
    size_t without_proof_len;
    const char *nonce;
    size_t nonce_len;
    uint8_t proof[GR_SCRAM_MAX_HASH];
    size_t proof_len;
} gr_scram_client_final_t;
/* Parses a client-final-message as Kafka's ClientFinalMessage. 0, or -1
 * with the reason in err. */
int gr_scram_parse_client_final(const uint8_t *in, size_t len,
                                gr_scram_client_final_t *m, char *err,
                                size_t n);

/* --- the credentials store */
typedef struct gr_scram_cred {
    char *user;
    int type;
    int32_t iterations;
    uint8_t *salt;
    size_t salt_len;
    uint8_t stored_key[GR_SCRAM_MAX_HASH];
    uint8_t server_key[GR_SCRAM_MAX_HASH];
} gr_scram_cred_t;

typedef struct gr_scram_store gr_scram_store_t;

/* Loads <dir>/gregor-configs/scram-credentials (none: empty). NULL with
 * the reason logged (a file that does not parse stops start-up). */
gr_scram_store_t *gr_scram_store_open(const char *dir);
void gr_scram_store_close(gr_scram_store_t *s);
/* The credential of user for type, or NULL. Valid until the next change
 * (copy what is kept across loop turns). */
const gr_scram_cred_t *gr_scram_store_get(const gr_scram_store_t *s,
                                          const char *user, int type);
/* The i-th credential (i from 0), NULL past the end. */
const gr_scram_cred_t *gr_scram_store_at(const gr_scram_store_t *s, int i);
/* Sets or (salt NULL) removes a credential in memory. 0, or -1 (ENOMEM). */
int gr_scram_store_set(gr_scram_store_t *s, const char *user, int type,
                       int32_t iterations, const uint8_t *salt, size_t salt_len,
                       const uint8_t *stored_key, const uint8_t *server_key);
/* A copy of s's credentials (not tied to a file), to change before
 * installing; NULL when out of memory. Free with gr_scram_store_close. */
gr_scram_store_t *gr_scram_store_copy(const gr_scram_store_t *s);
/* Writes what's credentials whole to s's file on a worker (temporary
 * file, fsync, rename, fsync of the directory), then cb(arg, 0 or an
 * errno) on the loop, maybe before this returns. s's memory is not
 * touched. */
void gr_scram_store_write(gr_broker_t *b, const gr_scram_store_t *s,
                          const gr_scram_store_t *what,
                          void (*cb)(void *arg, int err), void *arg);
/* Makes copy's credentials s's (copy is freed): for logins from now on. */
void gr_scram_store_install(gr_scram_store_t *s, gr_scram_store_t *copy);

#endif
