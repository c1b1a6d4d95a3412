/*
 * The gr_meta contract (tests/unit/meta/contract.c) over meta_zk, against
 * the ZooKeeper ensemble named by GREGOR_TEST_ZK ("host:port,..."; the
 * compat scenario zk_cluster starts one with tests/zk/ensemble.sh). Each
 * case gets a chroot of its own, /gregor-test/contract-<pid>-<n>, which
 * meta_zk makes. Without GREGOR_TEST_ZK it fails: it never skips. TAP on
 * stdout, as tests/unit/unit.
 */
#include "../unit/meta/contract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *hosts;
static int fresh_n;

static void
zk_fresh(char *where, size_t n)
{
    snprintf(where, n, "%s/gregor-test/contract-%d-%d", hosts, (int)getpid(),
             fresh_n++);
}

static gr_meta_t *
zk_open(gr_loop_t *loop, gr_workers_t *workers, const char *where,
        gr_meta_session_cb cb, void *arg)
{
    gr_meta_cfg_t cfg = { .loop = loop,
                          .workers = workers,
                          .connect = where,
                          .session_timeout_ms = 6000,
                          .connection_timeout_ms = 20000 };
    return gr_meta_zk_open(&cfg, cb, arg);
}

static const meta_engine_t zk_engine = {
    .name = "zookeeper",
    .fresh = zk_fresh,
    .open = zk_open,
    .remove = NULL, /* the ensemble is the test's own */
    .multi_create_stat = false,
};

int
main(void)
{
    Suite *s = suite_create("meta/contract-zk");
    TCase *tc = tcase_create("zookeeper");
    SRunner *sr;
    int failed;

    hosts = getenv("GREGOR_TEST_ZK");
    if (hosts == NULL || *hosts == '\0') {
        fprintf(stderr, "check_meta_zk: GREGOR_TEST_ZK (host:port,...) names "
                        "no ensemble; tests/zk/ensemble.sh starts one\n");
        return 1;
    }
    tcase_set_timeout(tc, 60);
    meta_contract_add(tc, &zk_engine);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_tap(sr, "-");
    srunner_run_all(sr, CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
