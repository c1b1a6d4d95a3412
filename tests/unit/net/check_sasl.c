/* net/sasl: JAAS text, the PLAIN and SCRAM messages and keys (RFC 7677's
 * test vector), and the exchange through a broker on a SASL_PLAINTEXT
 * listener: handshakes, authentication, what is refused before it, raw
 * v0 tokens, session lifetimes, the SCRAM credential APIs and their
 * durability. */
#include "../api/brokertest.h"
#include "../unit.h"

#include "core/log.h"
#include "core/time.h"
#include "net/jaas.h"
#include "net/sasl.h"
#include "core/fault.h"
#include "net/scram.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- JAAS */

START_TEST(jaas_plain)
{
    char err[256];
    gr_jaas_t *j = gr_jaas_parse(
        "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
        "  username=\"admin\" password='admin-secret' // the broker's own\n"
        "  /* users */ user_admin=\"admin-secret\" user_alice=\"a\\\"b\\\\c\"\n"
        "  user_bob=bob-pw_1.$x;",
        err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_str_eq(j->module,
                     "org.apache.kafka.common.security.plain.PlainLoginModule");
    ck_assert_str_eq(j->flag, "required");
    ck_assert_int_eq(j->nopts, 5);
    ck_assert_str_eq(gr_jaas_option(j, "password"), "admin-secret");
    ck_assert_str_eq(gr_jaas_option(j, "user_alice"), "a\"b\\c");
    ck_assert_str_eq(gr_jaas_option(j, "user_bob"), "bob-pw_1.$x");
    ck_assert_ptr_null(gr_jaas_option(j, "user_carol"));
    gr_jaas_free(j);
    /* flags in any case; no options */
    j = gr_jaas_parse("x.Y OPTIONAL;", err, sizeof err);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(j->nopts, 0);
    gr_jaas_free(j);
}
END_TEST

START_TEST(jaas_malformed)
{
    static const struct {
        const char *in, *err;
    } bad[] = {
        { "", "Login module not specified in JAAS config" },
        { "  // nothing\n", "Login module not specified in JAAS config" },
        { "a.B", "Login module control flag not specified in JAAS config" },
        { "a.B maybe;", "Invalid login module control flag 'maybe' in JAAS "
                        "config" },
        { "a.B required user_x=\"1\"",
          "JAAS config entry not terminated by semi-colon" },
        { "a.B required user_x;", "Value not specified for key 'user_x' in "
                                  "JAAS config" },
        { "a.B required user_x=;", "Value not specified for key 'user_x' in "
                                   "JAAS config" },
        /* a bare number is no string to Java's tokenizer */
        { "a.B required user_x=123;", "Value not specified for key 'user_x' "
                                      "in JAAS config" },
        { "a.B required; c.D required;", "JAAS config property contains 2 "
                                         "login modules, should be 1 module" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        gr_jaas_t *j = gr_jaas_parse(bad[i].in, err, sizeof err);
        ck_assert_msg(j == NULL, "accepted: %s", bad[i].in);
        ck_assert_str_eq(err, bad[i].err);
    }
}
END_TEST

/* --- PLAIN */

START_TEST(plain_message)
{
    static const uint8_t msg[] = "\0alice\0secret";
    const uint8_t *tok[3];
    size_t tl[3];
    char err[128];
    ck_assert_int_eq(
        gr_sasl_plain_parse(msg, sizeof msg - 1, tok, tl, err, sizeof err), 0);
    ck_assert_uint_eq(tl[0], 0);
    ck_assert_uint_eq(tl[1], 5);
    ck_assert(memcmp(tok[1], "alice", 5) == 0);
    ck_assert_uint_eq(tl[2], 6);
    ck_assert(memcmp(tok[2], "secret", 6) == 0);
    /* two or four tokens: Kafka's message */
    ck_assert_int_eq(gr_sasl_plain_parse((const uint8_t *)"a\0b", 3, tok, tl,
                                         err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "Invalid SASL/PLAIN response: expected 3 tokens, "
                          "got 2");
    ck_assert_int_eq(gr_sasl_plain_parse((const uint8_t *)"a\0b\0c\0d", 7, tok,
                                         tl, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "Invalid SASL/PLAIN response: expected 3 tokens, "
                          "got 4");
    ck_assert_int_eq(
        gr_sasl_plain_parse((const uint8_t *)"", 0, tok, tl, err, sizeof err),
        -1);
}
END_TEST

/* --- SCRAM: RFC 7677 section 3 */

#define V_USER   "user"
#define V_PASS   "pencil"
#define V_SALT   "W22ZaJ0SNY7soEsUEjb6gQ=="
#define V_CFIRST "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define V_SFIRST \
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=" V_SALT ",i=4096"
#define V_CFINAL_NP \
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define V_PROOF     "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define V_SERVERSIG "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

START_TEST(scram_rfc7677_vector)
{
    uint8_t salt[32], salted[64], stored[64], server[64], sig[64], ckey[64];
    uint8_t proof[64];
    const char *auth =
        "n=user,r=rOprNGfwEbeRWgbNEkqO," V_SFIRST "," V_CFINAL_NP;
    char b[128];
    long sl = gr_base64_decode(V_SALT, strlen(V_SALT), salt);
    ck_assert_int_eq(sl, 16);
    ck_assert_int_eq(gr_scram_salted_password(GR_SCRAM_SHA_256, V_PASS, 6, salt,
                                              (size_t)sl, 4096, salted),
                     0);
    ck_assert_int_eq(gr_scram_keys(GR_SCRAM_SHA_256, salted, stored, server),
                     0);
    /* ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage) */
    ck_assert_int_eq(
        gr_scram_hmac(GR_SCRAM_SHA_256, salted, 32, "Client Key", 10, ckey), 0);
    ck_assert_int_eq(
        gr_scram_hmac(GR_SCRAM_SHA_256, stored, 32, auth, strlen(auth), sig),
        0);
    for (int i = 0; i < 32; i++)
        proof[i] = ckey[i] ^ sig[i];
    gr_base64_encode(proof, 32, b);
    ck_assert_str_eq(b, V_PROOF);
    ck_assert_int_eq(
        gr_scram_hmac(GR_SCRAM_SHA_256, server, 32, auth, strlen(auth), sig),
        0);
    gr_base64_encode(sig, 32, b);
    ck_assert_str_eq(b, V_SERVERSIG);
}
END_TEST

START_TEST(scram_messages)
{
    gr_scram_client_first_t f;
    gr_scram_client_final_t c;
    char err[300];
    const char *s;

    ck_assert_int_eq(gr_scram_parse_client_first((const uint8_t *)V_CFIRST,
                                                 strlen(V_CFIRST), &f, err,
                                                 sizeof err),
                     0);
    ck_assert_str_eq(f.user, "user");
    ck_assert_str_eq(f.authzid, "");
    ck_assert_uint_eq(f.bare_len, strlen("n=user,r=rOprNGfwEbeRWgbNEkqO"));
    ck_assert(!f.tokenauth);
    /* an authzid, escaped names, an extension */
    s = "n,a=a=2Cb,n=a=3Db=2Cc,r=xyz,tokenauth=true";
    ck_assert_int_eq(gr_scram_parse_client_first((const uint8_t *)s, strlen(s),
                                                 &f, err, sizeof err),
                     0);
    ck_assert_str_eq(f.authzid, "a,b");
    ck_assert_str_eq(f.user, "a=b,c");
    ck_assert(f.tokenauth);
    /* channel binding asked (p=, y), a bad escape, no nonce */
    static const char *const bad[] = { "p=tls-unique,,n=u,r=x",
                                       "y,,n=u,r=x",
                                       "n,,n=a=41,r=x",
                                       "n,,n=u",
                                       "n,,n=u,r=",
                                       "n,,n=u,r=x,=v",
                                       "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gr_scram_parse_client_first((const uint8_t *)bad[i],
                                                  strlen(bad[i]), &f, err,
                                                  sizeof err) == -1,
                      "accepted %s", bad[i]);
    ck_assert(strncmp(err, "Invalid SCRAM client first message format", 41) ==
              0);
    s = V_CFINAL_NP ",p=" V_PROOF;
    ck_assert_int_eq(gr_scram_parse_client_final((const uint8_t *)s, strlen(s),
                                                 &c, err, sizeof err),
                     0);
    ck_assert_uint_eq(c.without_proof_len, strlen(V_CFINAL_NP));
    ck_assert_uint_eq(c.proof_len, 32);
    static const char *const badf[] = { "c=biws,r=x", "c=biw,r=x,p=AAAA",
                                        "c=biws,r=x,p=AA=A", "r=x,p=AAAA",
                                        "c=biws,r=x,p=" };
    for (size_t i = 0; i < sizeof badf / sizeof badf[0]; i++)
        ck_assert_msg(gr_scram_parse_client_final((const uint8_t *)badf[i],
                                                  strlen(badf[i]), &c, err,
                                                  sizeof err) == -1 ||
                          c.proof_len == 0,
                      "accepted %s", badf[i]);
}
END_TEST

/* --- through a broker */

static const char *const sasl_over[] = {
    "listeners=SASL_PLAINTEXT://127.0.0.1:0",
    "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config="
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    "user_alice=\"alice-pw\" user_bob=\"bob-pw\";",
    "connection.failed.authentication.delay.ms=0",
    NULL,
};

static gr_sasl_handshake_response_t *
handshake(gr_brokertest_t *t, int16_t ver, const char *mech)
{
    gr_sasl_handshake_request_t rq;
    gr_sasl_handshake_request_init(&rq);
    rq.mechanism = gr_str_c(mech);
    return gr_brokertest_call(t, GR_API_SASL_HANDSHAKE, ver, &rq);
}

static gr_sasl_authenticate_response_t *
authenticate(gr_brokertest_t *t, int16_t ver, const void *p, size_t n)
{
    gr_sasl_authenticate_request_t rq;
    gr_sasl_authenticate_request_init(&rq);
    rq.auth_bytes = (gr_bytes_t){ p, (int32_t)n };
    return gr_brokertest_call(t, GR_API_SASL_AUTHENTICATE, ver, &rq);
}

static bool
metadata_closed(gr_brokertest_t *t)
{
    gr_metadata_request_t rq;
    gr_metadata_request_init(&rq);
    rq.topics_cnt = 0;
    return gr_brokertest_call_closed(t, GR_API_METADATA, 9, &rq);
}

static void
metadata_ok(gr_brokertest_t *t)
{
    gr_metadata_request_t rq;
    gr_metadata_request_init(&rq);
    rq.topics_cnt = 0;
    ck_assert_int_eq(((gr_metadata_response_t *)gr_brokertest_call(
                          t, GR_API_METADATA, 9, &rq))
                         ->brokers_cnt,
                     1);
}

static void
plain_login(gr_brokertest_t *t, const char *user, const char *pw, int16_t err)
{
    char msg[128];
    int n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, user, 0, pw);
    gr_sasl_handshake_response_t *hs = handshake(t, 1, "PLAIN");
    gr_sasl_authenticate_response_t *au;
    ck_assert_int_eq(hs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(hs->mechanisms_cnt, 3);
    au = authenticate(t, 2, msg, (size_t)n);
    ck_assert_int_eq(au->error_code, err);
}

START_TEST(broker_plain)
{
    gr_brokertest_t t;
    gr_api_versions_request_t av;
    gr_api_versions_response_t *avr;
    gr_metadata_request_t md;
    gr_metadata_response_t *mr;

    gr_brokertest_start(&t, sasl_over);
    /* ApiVersions is answered before authentication, with the SASL APIs */
    gr_api_versions_request_init(&av);
    avr = gr_brokertest_call(&t, GR_API_API_VERSIONS, 2, &av);
    ck_assert_int_eq(avr->error_code, 0);
    {
        int found = 0;
        for (int i = 0; i < avr->api_keys_cnt; i++)
            found +=
                avr->api_keys[i].api_key == GR_API_SASL_HANDSHAKE ||
                avr->api_keys[i].api_key == GR_API_SASL_AUTHENTICATE ||
                avr->api_keys[i].api_key == GR_API_ALTER_USER_SCRAM_CREDENTIALS;
        ck_assert_int_eq(found, 3);
    }
    plain_login(&t, "alice", "alice-pw", GR_KERR_NONE);
    gr_metadata_request_init(&md);
    md.topics_cnt = 0;
    mr = gr_brokertest_call(&t, GR_API_METADATA, 9, &md);
    ck_assert_int_eq(mr->brokers_cnt, 1);
    /* once authenticated: KafkaApis' answers */
    {
        gr_sasl_authenticate_response_t *au = authenticate(&t, 1, "x", 1);
        ck_assert_int_eq(au->error_code, GR_KERR_ILLEGAL_SASL_STATE);
        ck_assert(gr_str_eq_cstr(&au->error_message,
                                 "SaslAuthenticate request received after "
                                 "successful authentication"));
        ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code,
                         GR_KERR_ILLEGAL_SASL_STATE);
    }
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(broker_plain_refused)
{
    gr_brokertest_t t;
    gr_sasl_authenticate_response_t *au;
    char msg[64];
    int n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "alice", 0, "wrong");

    gr_brokertest_start(&t, sasl_over);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    au = authenticate(&t, 1, msg, (size_t)n);
    ck_assert_int_eq(au->error_code, GR_KERR_SASL_AUTHENTICATION_FAILED);
    ck_assert(gr_str_eq_cstr(&au->error_message,
                             "Authentication failed: Invalid username or "
                             "password"));
    ck_assert(metadata_closed(&t)); /* then closed */
    gr_brokertest_stop(&t);

    /* with connection.failed.authentication.delay.ms, as Kafka's
     * Selector: the answer at once, the close after the delay (a client
     * that reads the answer before the close sees error 58) */
    {
        const char *const slow[] = { sasl_over[0], sasl_over[1], sasl_over[2],
                                     "connection.failed.authentication."
                                     "delay.ms=1000",
                                     NULL };
        struct pollfd pf;
        int64_t t0;
        uint8_t b;
        gr_brokertest_start(&t, slow);
        ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
        t0 = gr_mono_us();
        au = authenticate(&t, 1, msg, (size_t)n);
        ck_assert_int_eq(au->error_code, GR_KERR_SASL_AUTHENTICATION_FAILED);
        ck_assert_int_lt(gr_mono_us() - t0, 900000); /* not held */
        pf.fd = t.fd;
        pf.events = POLLIN;
        ck_assert_int_eq(poll(&pf, 1, 100), 0); /* still open */
        pf.revents = 0;
        ck_assert_int_eq(poll(&pf, 1, 5000), 1);
        ck_assert_int_le(read(t.fd, &b, 1), 0); /* then closed */
        gr_brokertest_stop(&t);
    }

    /* a request before authentication closes at once */
    gr_brokertest_start(&t, sasl_over);
    ck_assert(metadata_closed(&t));
    gr_brokertest_stop(&t);

    /* after the handshake, only SaslAuthenticate */
    gr_brokertest_start(&t, sasl_over);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    ck_assert(metadata_closed(&t));
    gr_brokertest_stop(&t);

    /* an unknown mechanism: UNSUPPORTED_SASL_MECHANISM and the list */
    gr_brokertest_start(&t, sasl_over);
    {
        gr_sasl_handshake_response_t *hs = handshake(&t, 1, "GSSAPI");
        ck_assert_int_eq(hs->error_code, GR_KERR_UNSUPPORTED_SASL_MECHANISM);
        ck_assert_int_eq(hs->mechanisms_cnt, 3);
        ck_assert(gr_str_eq_cstr(&hs->mechanisms[0], "PLAIN"));
    }
    ck_assert(metadata_closed(&t));
    gr_brokertest_stop(&t);

    /* a second handshake during authentication: ILLEGAL_SASL_STATE */
    gr_brokertest_start(&t, sasl_over);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code,
                     GR_KERR_ILLEGAL_SASL_STATE);
    ck_assert(metadata_closed(&t));
    gr_brokertest_stop(&t);

    /* a frame above sasl.server.max.receive.size before authentication */
    {
        const char *const over[] = { sasl_over[0],
                                     sasl_over[1],
                                     sasl_over[2],
                                     sasl_over[3],
                                     "sasl.server.max.receive.size=100",
                                     NULL };
        uint8_t big[4] = { 0, 0, 1, 0 };
        uint8_t b;
        gr_brokertest_start(&t, over);
        ck_assert_int_eq(write(t.fd, big, 4), 4);
        ck_assert_int_le(read(t.fd, &b, 1), 0);
        gr_brokertest_stop(&t);
    }
    /* the same with the delay: no answer, the close after the delay */
    {
        const char *const over[] = { sasl_over[0],
                                     sasl_over[1],
                                     sasl_over[2],
                                     "connection.failed.authentication."
                                     "delay.ms=1000",
                                     "sasl.server.max.receive.size=100",
                                     NULL };
        uint8_t big[4] = { 0, 0, 1, 0 };
        struct pollfd pf;
        int64_t t0;
        uint8_t b;
        gr_brokertest_start(&t, over);
        t0 = gr_mono_us();
        ck_assert_int_eq(write(t.fd, big, 4), 4);
        pf.fd = t.fd;
        pf.events = POLLIN;
        ck_assert_int_eq(poll(&pf, 1, 300), 0); /* still open */
        pf.revents = 0;
        ck_assert_int_eq(poll(&pf, 1, 5000), 1);
        ck_assert_int_le(read(t.fd, &b, 1), 0); /* then closed */
        ck_assert_int_ge(gr_mono_us() - t0, 900000);
        gr_brokertest_stop(&t);
    }
}
END_TEST

START_TEST(broker_plaintext_listener)
{
    /* no SASL on the listener: KafkaApis' ILLEGAL_SASL_STATE */
    gr_brokertest_t t;
    gr_brokertest_start(&t, NULL);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code,
                     GR_KERR_ILLEGAL_SASL_STATE);
    ck_assert_int_eq(authenticate(&t, 0, "", 0)->error_code,
                     GR_KERR_ILLEGAL_SASL_STATE);
    gr_brokertest_stop(&t);
}
END_TEST

/* writes a raw token and reads the raw answer into out (its length, or
 * -1 when the connection closed) */
static long
raw_token(gr_brokertest_t *t, const void *p, size_t n, uint8_t *out, size_t cap)
{
    uint8_t hdr[4];
    size_t got = 0;
    gr_put_u32(hdr, (uint32_t)n);
    ck_assert_int_eq(write(t->fd, hdr, 4), 4);
    ck_assert_int_eq(write(t->fd, p, n), (ssize_t)n);
    while (got < 4) {
        ssize_t r = read(t->fd, hdr + got, 4 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    n = gr_get_u32(hdr);
    ck_assert_uint_le(n, cap);
    for (got = 0; got < n;) {
        ssize_t r = read(t->fd, out + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return (long)n;
}

START_TEST(broker_handshake_v0_raw)
{
    gr_brokertest_t t;
    gr_metadata_request_t md;
    uint8_t out[64];
    char msg[64];
    int n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "bob", 0, "bob-pw");

    gr_brokertest_start(&t, sasl_over);
    ck_assert_int_eq(handshake(&t, 0, "PLAIN")->error_code, 0);
    /* PLAIN answers an empty token (Kafka's new byte[0]) */
    ck_assert_int_eq(raw_token(&t, msg, (size_t)n, out, sizeof out), 0);
    gr_metadata_request_init(&md);
    md.topics_cnt = 0;
    ck_assert_int_eq(((gr_metadata_response_t *)gr_brokertest_call(
                          &t, GR_API_METADATA, 1, &md))
                         ->brokers_cnt,
                     1);
    gr_brokertest_stop(&t);

    /* a wrong password in raw form: no answer, closed */
    gr_brokertest_start(&t, sasl_over);
    ck_assert_int_eq(handshake(&t, 0, "PLAIN")->error_code, 0);
    n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "bob", 0, "nope");
    ck_assert_int_eq(raw_token(&t, msg, (size_t)n, out, sizeof out), -1);
    gr_brokertest_stop(&t);
}
END_TEST

/* AlterUserScramCredentials of one upsertion (or deletion: pw NULL),
 * sent on t's connection; its correlation id. */
static int32_t
scram_alter_send(gr_brokertest_t *t, const char *user, int8_t mech,
                 int32_t iter, const char *pw)
{
    gr_alter_user_scram_credentials_request_t rq;
    gr_alter_user_scram_credentials_request_scram_credential_upsertion_t u;
    gr_alter_user_scram_credentials_request_scram_credential_deletion_t d;
    static uint8_t salt[] = "0123456789abcdef", salted[64];
    gr_alter_user_scram_credentials_request_init(&rq);
    if (pw != NULL) {
        memset(&u, 0, sizeof u);
        u.name = gr_str_c(user);
        u.mechanism = mech;
        u.iterations = iter;
        u.salt = (gr_bytes_t){ salt, 16 };
        if (gr_scram_hash_len(mech) > 0)
            ck_assert_int_eq(gr_scram_salted_password(
                                 mech, pw, strlen(pw), salt, 16,
                                 iter >= 4096 && iter <= 16384 ? iter : 4096,
                                 salted),
                             0);
        u.salted_password = (gr_bytes_t){
            salted,
            (int32_t)(gr_scram_hash_len(mech) ? gr_scram_hash_len(mech) : 32)
        };
        rq.upsertions = &u;
        rq.upsertions_cnt = 1;
        rq.deletions_cnt = 0;
    } else {
        d.name = gr_str_c(user);
        d.mechanism = mech;
        rq.deletions = &d;
        rq.deletions_cnt = 1;
        rq.upsertions_cnt = 0;
    }
    return gr_brokertest_send(t, GR_API_ALTER_USER_SCRAM_CREDENTIALS, 0, &rq);
}

/* Its answer: the one user's error code. */
static int16_t
scram_alter_recv(gr_brokertest_t *t, const char *user, int32_t corr)
{
    gr_alter_user_scram_credentials_response_t *rs = gr_brokertest_recv(
        t, GR_API_ALTER_USER_SCRAM_CREDENTIALS, 0, corr);
    ck_assert_int_eq(rs->results_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rs->results[0].user, user));
    return rs->results[0].error_code;
}

static int16_t
scram_alter(gr_brokertest_t *t, const char *user, int8_t mech, int32_t iter,
            const char *pw)
{
    return scram_alter_recv(t, user,
                            scram_alter_send(t, user, mech, iter, pw));
}

/* A SCRAM login over SaslAuthenticate v2: the server's answers checked
 * as a client does. Returns the second step's error code. */
static int16_t
scram_login(gr_brokertest_t *t, int type, const char *user, const char *pw,
            int64_t *lifetime)
{
    char first[128], fin[512], auth[1024], b[128];
    uint8_t salt[64], salted[64], ckey[64], stored[64], sig[64], proof[64];
    gr_sasl_authenticate_response_t *au;
    const char *sf, *r, *s, *i;
    size_t h = gr_scram_hash_len(type);
    int n;

    ck_assert_int_eq(handshake(t, 1, gr_scram_mech_name(type))->error_code, 0);
    n = snprintf(first, sizeof first, "n,,n=%s,r=clientnonce123", user);
    au = authenticate(t, 2, first, (size_t)n);
    if (au->error_code != 0)
        return au->error_code;
    sf = strndup((const char *)au->auth_bytes.ptr, (size_t)au->auth_bytes.len);
    ck_assert(strncmp(sf, "r=clientnonce123", 16) == 0);
    r = sf + 2;
    s = strstr(sf, ",s=") + 3;
    i = strstr(sf, ",i=") + 3;
    {
        long sl = gr_base64_decode(s, (size_t)(i - 3 - s), salt);
        ck_assert_int_gt(sl, 0);
        ck_assert_int_eq(gr_scram_salted_password(type, pw, strlen(pw), salt,
                                                  (size_t)sl, atoi(i), salted),
                         0);
    }
    n = snprintf(fin, sizeof fin, "c=biws,r=%.*s", (int)(strchr(r, ',') - r),
                 r);
    snprintf(auth, sizeof auth, "%s,%s,%s", first + 3, sf, fin);
    gr_scram_hmac(type, salted, h, "Client Key", 10, ckey);
    gr_scram_hash(type, ckey, h, stored);
    gr_scram_hmac(type, stored, h, auth, strlen(auth), sig);
    for (size_t k = 0; k < h; k++)
        proof[k] = ckey[k] ^ sig[k];
    gr_base64_encode(proof, h, b);
    n += snprintf(fin + n, sizeof fin - (size_t)n, ",p=%s", b);
    au = authenticate(t, 2, fin, (size_t)n);
    if (au->error_code == 0) {
        uint8_t skey[64];
        char v[128];
        gr_scram_hmac(type, salted, h, "Server Key", 10, skey);
        gr_scram_hmac(type, skey, h, auth, strlen(auth), sig);
        strcpy(v, "v=");
        gr_base64_encode(sig, h, v + 2);
        ck_assert_int_eq(au->auth_bytes.len, (int32_t)strlen(v));
        ck_assert(memcmp(au->auth_bytes.ptr, v, strlen(v)) == 0);
        if (lifetime != NULL)
            *lifetime = au->session_lifetime_ms;
    } else {
        ck_assert(gr_str_eq_cstr(&au->error_message,
                                 type == GR_SCRAM_SHA_256
                                     ? "Authentication failed during "
                                       "authentication due to invalid "
                                       "credentials with SASL mechanism "
                                       "SCRAM-SHA-256"
                                     : "Authentication failed during "
                                       "authentication due to invalid "
                                       "credentials with SASL mechanism "
                                       "SCRAM-SHA-512"));
    }
    free((void *)sf);
    return au->error_code;
}

START_TEST(broker_scram)
{
    gr_brokertest_t t;
    gr_brokertest_start(&t, sasl_over);
    plain_login(&t, "alice", "alice-pw", GR_KERR_NONE);
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 4096, "c-pw"),
                     GR_KERR_NONE);
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_512, 8192, "c-pw5"),
                     GR_KERR_NONE);
    /* Kafka's refusals */
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 4095, "x"),
                     GR_KERR_UNACCEPTABLE_CREDENTIAL);
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 16385, "x"),
                     GR_KERR_UNACCEPTABLE_CREDENTIAL);
    ck_assert_int_eq(scram_alter(&t, "carol", 3, 4096, "x"),
                     GR_KERR_UNSUPPORTED_SASL_MECHANISM);
    ck_assert_int_eq(scram_alter(&t, "", GR_SCRAM_SHA_256, 4096, "x"),
                     GR_KERR_UNACCEPTABLE_CREDENTIAL);
    ck_assert_int_eq(scram_alter(&t, "dave", GR_SCRAM_SHA_256, 0, NULL),
                     GR_KERR_RESOURCE_NOT_FOUND);
    {
        /* the same user twice in one request */
        gr_alter_user_scram_credentials_request_t rq;
        gr_alter_user_scram_credentials_request_scram_credential_deletion_t
            d[2];
        gr_alter_user_scram_credentials_response_t *rs;
        gr_alter_user_scram_credentials_request_init(&rq);
        d[0].name = d[1].name = gr_str_c("carol");
        d[0].mechanism = d[1].mechanism = GR_SCRAM_SHA_256;
        rq.deletions = d;
        rq.deletions_cnt = 2;
        rq.upsertions_cnt = 0;
        rs =
            gr_brokertest_call(&t, GR_API_ALTER_USER_SCRAM_CREDENTIALS, 0, &rq);
        ck_assert_int_eq(rs->results_cnt, 1);
        ck_assert_int_eq(rs->results[0].error_code, GR_KERR_DUPLICATE_RESOURCE);
    }
    {
        gr_describe_user_scram_credentials_request_t rq;
        gr_describe_user_scram_credentials_request_user_name_t u[3];
        gr_describe_user_scram_credentials_response_t *rs;
        gr_describe_user_scram_credentials_request_init(&rq);
        rq.users_cnt = -1;
        rs = gr_brokertest_call(&t, GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                                &rq);
        ck_assert_int_eq(rs->results_cnt, 1);
        ck_assert(gr_str_eq_cstr(&rs->results[0].user, "carol"));
        ck_assert_int_eq(rs->results[0].credential_infos_cnt, 2);
        ck_assert_int_eq(rs->results[0].credential_infos[1].iterations, 8192);
        u[0].name = gr_str_c("nobody");
        u[1].name = gr_str_c("carol");
        u[2].name = gr_str_c("carol");
        rq.users = u;
        rq.users_cnt = 3;
        rs = gr_brokertest_call(&t, GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                                &rq);
        ck_assert_int_eq(rs->results_cnt, 2);
        ck_assert_int_eq(rs->results[0].error_code, GR_KERR_DUPLICATE_RESOURCE);
        ck_assert_int_eq(rs->results[1].error_code, GR_KERR_RESOURCE_NOT_FOUND);
        ck_assert(gr_str_eq_cstr(&rs->results[1].error_message,
                                 "Attempt to describe a user credential that "
                                 "does not exist: nobody"));
    }
    /* the users log in at once, and after a restart */
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "carol", "c-pw", NULL),
                     GR_KERR_NONE);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_512, "carol", "c-pw5", NULL),
                     GR_KERR_NONE);
    /* removed: refused at once */
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 0, NULL),
                     GR_KERR_NONE);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "carol", "c-pw", NULL),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_512, "carol", "wrong", NULL),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_brokertest_stop(&t);
}
END_TEST

/* A SCRAM change counts once its write is durable: while the write
 * waits for a worker, a login with the new password is refused and the
 * old one still passes; a write that fails changes nothing (the answer
 * is UNKNOWN_SERVER_ERROR), in memory and after a restart. */
START_TEST(broker_scram_store_fails)
{
    gr_brokertest_t t;
    int fd, fd2;
    int32_t corr;
    gr_brokertest_start(&t, sasl_over);
    plain_login(&t, "alice", "alice-pw", GR_KERR_NONE);
    ck_assert_int_eq(scram_alter(&t, "erin", GR_SCRAM_SHA_256, 4096, "old-pw"),
                     GR_KERR_NONE);
    fd = t.fd;
    fd2 = gr_brokertest_connect(&t);
    gr_brokertest_hold_workers(&t);
    corr = scram_alter_send(&t, "erin", GR_SCRAM_SHA_256, 4096, "new-pw");
    ck_assert(!gr_brokertest_readable(fd, 200));
    t.fd = fd2; /* logins on other connections meanwhile */
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "new-pw", NULL),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    close(fd2);
    t.fd = fd;
    t.fd = fd2 = gr_brokertest_connect(&t);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "old-pw", NULL),
                     GR_KERR_NONE);
    close(fd2);
    t.fd = fd;
    gr_brokertest_release_workers(&t);
    ck_assert_int_eq(scram_alter_recv(&t, "erin", corr), GR_KERR_NONE);
    t.fd = fd2 = gr_brokertest_connect(&t);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "new-pw", NULL),
                     GR_KERR_NONE);
    close(fd2);
    t.fd = fd;
    ck_assert_int_eq(scram_alter(&t, "erin", GR_SCRAM_SHA_256, 4096, "old-pw"),
                     GR_KERR_NONE);
    gr_fault_arm("scram.store", 1);
    ck_assert_int_eq(scram_alter(&t, "erin", GR_SCRAM_SHA_256, 4096, "new-pw"),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    gr_fault_arm("scram.store", 1);
    ck_assert_int_eq(scram_alter(&t, "frank", GR_SCRAM_SHA_512, 4096, "f-pw"),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    gr_fault_arm("scram.store", 1);
    ck_assert_int_eq(scram_alter(&t, "erin", GR_SCRAM_SHA_256, 0, NULL),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    gr_fault_clear();
    gr_brokertest_restart(&t, sasl_over); /* memory as before: a new conn */
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "new-pw", NULL),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "old-pw", NULL),
                     GR_KERR_NONE);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_512, "frank", "f-pw", NULL),
                     GR_KERR_SASL_AUTHENTICATION_FAILED);
    /* once the disk takes it, the change holds */
    gr_brokertest_restart(&t, sasl_over);
    plain_login(&t, "alice", "alice-pw", GR_KERR_NONE);
    ck_assert_int_eq(scram_alter(&t, "erin", GR_SCRAM_SHA_256, 4096, "new-pw"),
                     GR_KERR_NONE);
    gr_brokertest_restart(&t, sasl_over);
    ck_assert_int_eq(scram_login(&t, GR_SCRAM_SHA_256, "erin", "new-pw", NULL),
                     GR_KERR_NONE);
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(broker_principal_authorized)
{
    /* the SASL principal is what the authorizer sees: User:admin is a
     * super user, User:alice may not describe SCRAM credentials */
    const char *const over[] = {
        sasl_over[0],
        sasl_over[1],
        "listener.name.sasl_plaintext.plain.sasl.jaas.config="
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        "user_alice=\"alice-pw\" user_admin=\"admin-pw\";",
        sasl_over[3],
        "authorizer.class.name="
        "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:admin",
        NULL
    };
    gr_describe_user_scram_credentials_request_t rq;
    gr_describe_user_scram_credentials_request_user_name_t u;
    gr_describe_user_scram_credentials_response_t *rs;
    gr_brokertest_t t;

    gr_describe_user_scram_credentials_request_init(&rq);
    u.name = gr_str_c("carol");
    rq.users = &u;
    rq.users_cnt = 1;
    gr_brokertest_start(&t, over);
    plain_login(&t, "alice", "alice-pw", GR_KERR_NONE);
    rs = gr_brokertest_call(&t, GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    ck_assert_int_eq(rs->results_cnt, 1);
    ck_assert_int_eq(rs->results[0].error_code,
                     GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 4096, "pw"),
                     GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    gr_brokertest_restart(&t, over);
    plain_login(&t, "admin", "admin-pw", GR_KERR_NONE);
    ck_assert_int_eq(scram_alter(&t, "carol", GR_SCRAM_SHA_256, 4096, "pw"),
                     GR_KERR_NONE);
    rs = gr_brokertest_call(&t, GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->results[0].credential_infos_cnt, 1);
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(broker_reauth)
{
    const char *const over[] = { sasl_over[0],
                                 sasl_over[1],
                                 sasl_over[2],
                                 sasl_over[3],
                                 "connections.max.reauth.ms=1500",
                                 NULL };
    gr_brokertest_t t;
    char msg[64];
    int n;
    gr_sasl_authenticate_response_t *au;

    gr_brokertest_start(&t, over);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "alice", 0, "alice-pw");
    au = authenticate(&t, 1, msg, (size_t)n);
    ck_assert_int_eq(au->error_code, 0);
    ck_assert_int_eq(au->session_lifetime_ms, 1500);
    usleep(1100 * 1000);
    /* re-authentication mid-connection, same principal */
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    au = authenticate(&t, 2, msg, (size_t)n);
    ck_assert_int_eq(au->error_code, 0);
    ck_assert_int_eq(au->session_lifetime_ms, 1500);
    metadata_ok(&t);
    /* another principal is refused */
    usleep(1100 * 1000);
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "bob", 0, "bob-pw");
    au = authenticate(&t, 2, msg, (size_t)n);
    ck_assert_int_eq(au->error_code, GR_KERR_SASL_AUTHENTICATION_FAILED);
    ck_assert(gr_str_eq_cstr(&au->error_message,
                             "Cannot change principals during "
                             "re-authentication from User.alice: User.bob"));
    gr_brokertest_stop(&t);

    /* past its lifetime without re-authenticating: closed */
    gr_brokertest_start(&t, over);
    n = snprintf(msg, sizeof msg, "%c%s%c%s", 0, "alice", 0, "alice-pw");
    ck_assert_int_eq(handshake(&t, 1, "PLAIN")->error_code, 0);
    ck_assert_int_eq(authenticate(&t, 1, msg, (size_t)n)->error_code, 0);
    metadata_ok(&t);
    usleep(1600 * 1000);
    ck_assert(metadata_closed(&t));
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(startup_refusals)
{
    static const char *const bad[][3] = {
        /* Kafka's default mechanism */
        { "listeners=SASL_PLAINTEXT://127.0.0.1:0", NULL, NULL },
        { "listeners=SASL_PLAINTEXT://127.0.0.1:0",
          "sasl.enabled.mechanisms=PLAIN", NULL }, /* PLAIN without users */
        { "listeners=SASL_PLAINTEXT://127.0.0.1:0",
          "sasl.enabled.mechanisms=PLAIN",
          "listener.name.sasl_plaintext.plain.sasl.jaas.config="
          "org.apache.kafka.common.security.plain.PlainLoginModule "
          "required user_a=\"b\"" },
        { "listeners=SASL_PLAINTEXT://127.0.0.1:0",
          "sasl.enabled.mechanisms=OAUTHBEARER2", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_conf_t *conf = gr_conf_new();
        char dir[] = "/tmp/gr-sasl-XXXXXX", kv[64];
        gr_broker_t *b;
        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(kv, sizeof kv, "log.dirs=%s", dir);
        gr_conf_set_kv(conf, kv);
        for (int k = 0; k < 3 && bad[i][k]; k++)
            gr_conf_set_kv(conf, bad[i][k]);
        gr_log_level = GR_LOG_LEVEL_ERROR;
        ck_assert_int_eq(gr_conf_finish(conf), 0);
        b = gr_broker_new(conf, NULL, NULL);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(gr_broker_run(b), -1);
        gr_broker_destroy(b);
        gr_conf_destroy(conf);
        rmdir(dir);
    }
}
END_TEST

Suite *
suite_net_sasl(void)
{
    Suite *s = suite_create("net/sasl");
    TCase *tc = tcase_create("parsers");
    tcase_add_test(tc, jaas_plain);
    tcase_add_test(tc, jaas_malformed);
    tcase_add_test(tc, plain_message);
    tcase_add_test(tc, scram_rfc7677_vector);
    tcase_add_test(tc, scram_messages);
    suite_add_tcase(s, tc);
    tc = tcase_create("broker");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, broker_plain);
    tcase_add_test(tc, broker_plain_refused);
    tcase_add_test(tc, broker_plaintext_listener);
    tcase_add_test(tc, broker_handshake_v0_raw);
    tcase_add_test(tc, broker_scram);
    tcase_add_test(tc, broker_scram_store_fails);
    tcase_add_test(tc, broker_principal_authorized);
    tcase_add_test(tc, broker_reauth);
    tcase_add_test(tc, startup_refusals);
    suite_add_tcase(s, tc);
    return s;
}
