/* net/tls: the parsers of TLS settings (inline PEM values, cipher suite
 * names, ssl.principal.mapping.rules). */
#include "../unit.h"

#include "net/tls.h"

#include <stdlib.h>
#include <string.h>

START_TEST(pem_without_newlines)
{
    /* a properties file's continued lines: the newlines are gone */
    const char *in = "-----BEGIN CERTIFICATE----- "
                     "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2"
                     "d3h5eg== -----END CERTIFICATE-----";
    char *out = gr_tls_pem_normalize(in);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "-----BEGIN CERTIFICATE-----\n"
                          "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2\n"
                          "d3h5eg==\n"
                          "-----END CERTIFICATE-----\n");
    free(out);
}
END_TEST

START_TEST(pem_two_blocks_and_spaces)
{
    const char *in = "  -----BEGIN ENCRYPTED PRIVATE KEY-----\n  QUJD\n"
                     "  REVG\n-----END ENCRYPTED PRIVATE KEY-----\n"
                     "-----BEGIN CERTIFICATE-----QUJD-----END CERTIFICATE-----";
    char *out = gr_tls_pem_normalize(in);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nQUJDREVG\n"
                          "-----END ENCRYPTED PRIVATE KEY-----\n"
                          "-----BEGIN CERTIFICATE-----\nQUJD\n"
                          "-----END CERTIFICATE-----\n");
    free(out);
}
END_TEST

START_TEST(pem_malformed)
{
    ck_assert_ptr_null(gr_tls_pem_normalize(""));
    ck_assert_ptr_null(gr_tls_pem_normalize("not pem at all"));
    /* no END, END of another label, a character outside base64 */
    ck_assert_ptr_null(gr_tls_pem_normalize("-----BEGIN CERTIFICATE-----QUJD"));
    ck_assert_ptr_null(gr_tls_pem_normalize(
        "-----BEGIN CERTIFICATE-----QUJD-----END PRIVATE KEY-----"));
    ck_assert_ptr_null(gr_tls_pem_normalize(
        "-----BEGIN CERTIFICATE-----QU*D-----END CERTIFICATE-----"));
    ck_assert_ptr_null(gr_tls_pem_normalize("-----BEGIN -----"));
}
END_TEST

START_TEST(cipher_names)
{
    char o[128];
    /* Java's (IANA) names to OpenSSL's; TLS 1.3 suites keep theirs */
    ck_assert_int_eq(gr_tls_cipher_name("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                                        o, sizeof o),
                     0);
    ck_assert_str_eq(o, "ECDHE-RSA-AES128-GCM-SHA256");
    ck_assert_int_eq(gr_tls_cipher_name(
                         "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", o,
                         sizeof o),
                     0);
    ck_assert_str_eq(o, "ECDHE-ECDSA-CHACHA20-POLY1305");
    ck_assert_int_eq(gr_tls_cipher_name("TLS_AES_256_GCM_SHA384", o, sizeof o),
                     1);
    ck_assert_str_eq(o, "TLS_AES_256_GCM_SHA384");
    /* OpenSSL's own name is taken as it is */
    ck_assert_int_eq(gr_tls_cipher_name("ECDHE-RSA-AES256-GCM-SHA384", o,
                                        sizeof o),
                     0);
    ck_assert_int_eq(gr_tls_cipher_name("TLS_NOT_A_SUITE", o, sizeof o), -1);
    ck_assert_int_eq(gr_tls_cipher_name("", o, sizeof o), -1);
}
END_TEST

static const char *
map(const char *rules, const char *dn)
{
    static char out[256];
    char why[256];
    if (gr_tls_map_principal(rules, dn, out, sizeof out, why, sizeof why) != 0)
        return NULL;
    return out;
}

START_TEST(principal_rules)
{
    const char *dn = "CN=client,OU=ServiceUsers,O=Gregor";
    /* DEFAULT (and no rules) is the whole distinguished name */
    ck_assert_str_eq(map("DEFAULT", dn), dn);
    ck_assert_str_eq(map(NULL, dn), dn);
    ck_assert_str_eq(map("", dn), dn);
    /* Kafka's documented forms: the first matching rule wins */
    ck_assert_str_eq(map("RULE:^CN=([a-z]*),OU=ServiceUsers.*$/$1/,DEFAULT",
                         dn),
                     "client");
    ck_assert_str_eq(map("RULE:^CN=([a-z]*),OU=Other.*$/$1/,DEFAULT", dn), dn);
    ck_assert_str_eq(map("RULE:^CN=([a-z]*),OU=(.*),O=.*$/$1@$2/U", dn),
                     "CLIENT@SERVICEUSERS");
    ck_assert_str_eq(map("RULE:^CN=(.*),OU=.*$/User-$1/L", "CN=Ab,OU=x"),
                     "user-ab");
    /* an escaped slash in a pattern and a replacement */
    ck_assert_str_eq(map("RULE:^CN=a\\/b$/x\\/y/", "CN=a/b"), "x/y");
    /* no rule matches, no DEFAULT: the name as it is (Kafka's mapper) */
    ck_assert_str_eq(map("RULE:^nomatch$/x/", dn), dn);
}
END_TEST

START_TEST(principal_rules_invalid)
{
    char why[256];
    ck_assert_int_eq(
        gr_tls_map_principal("RULE:^CN=(.*)$", NULL, NULL, 0, why, sizeof why),
        -1);
    ck_assert_int_eq(
        gr_tls_map_principal("DEFAULTX", NULL, NULL, 0, why, sizeof why), -1);
    ck_assert_int_eq(gr_tls_map_principal("RULE:a/b/Q", NULL, NULL, 0, why,
                                          sizeof why),
                     -1);
    /* Java-only regex syntax is refused, not misread */
    ck_assert_int_eq(gr_tls_map_principal("RULE:^CN=(.*?),O=x$/$1/", NULL,
                                          NULL, 0, why, sizeof why),
                     -1);
    ck_assert_int_eq(gr_tls_map_principal("RULE:^CN=(.*)$/$1/,DEFAULT", NULL,
                                          NULL, 0, why, sizeof why),
                     0);
}
END_TEST

Suite *
suite_net_tls(void)
{
    Suite *s = suite_create("net/tls");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pem_without_newlines);
    tcase_add_test(tc, pem_two_blocks_and_spaces);
    tcase_add_test(tc, pem_malformed);
    tcase_add_test(tc, cipher_names);
    tcase_add_test(tc, principal_rules);
    tcase_add_test(tc, principal_rules_invalid);
    suite_add_tcase(s, tc);
    return s;
}
