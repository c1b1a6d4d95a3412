/* meta/broker: what the broker writes in its coordination store at
 * start-up (src/broker_meta.c): Kafka's persistent paths, its ephemeral
 * registration and /controller, the controller epoch one higher at every
 * start. */
#include "../unit.h"
#include "../api/brokertest.h"
#include "broker.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/worker.h"
#include "meta/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The highest controller epoch the broker's log (stderr, in file log)
 * says it was elected with, once above `above` (the election runs after
 * start): polled for 10 s; -1 if none came. */
static int
elected(const char *log, int above)
{
    static const char want[] = "elected controller (controller epoch ";
    char line[512];
    for (int i = 0; i < 1000; i++) {
        FILE *f = fopen(log, "r");
        int best = -1;
        fflush(stderr);
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            const char *p = strstr(line, want);
            if (p != NULL && atoi(p + sizeof want - 1) > best)
                best = atoi(p + sizeof want - 1);
        }
        if (f)
            fclose(f);
        if (best > above)
            return best;
        usleep(10000);
    }
    return -1;
}

static int answers, last_rc;
static char data[256];
static int nkids;

static void
on_data(void *arg, int rc, const void *d, size_t len, const gr_meta_stat_t *st)
{
    (void)arg;
    (void)st;
    answers++;
    last_rc = rc;
    data[0] = '\0';
    if (rc == 0 && len < sizeof data) {
        memcpy(data, d, len);
        data[len] = '\0';
    }
}

static void
on_children(void *arg, int rc, const char *const *names, int n,
            const gr_meta_stat_t *st)
{
    (void)arg;
    (void)names;
    (void)st;
    answers++;
    last_rc = rc;
    nkids = n;
}

START_TEST(test_register_and_elect)
{
    gr_brokertest_t bt;
    gr_loop_t *loop;
    gr_workers_t *w;
    gr_meta_t *m;
    char dir[128];
    gr_meta_cfg_t cfg;

    char log[] = "/tmp/gr-meta-log-XXXXXX";
    int fd = mkstemp(log), epoch;

    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_ptr_nonnull(freopen(log, "w", stderr));
    /* the first start may stop before its election (the log level is
     * ERROR there); whatever it reached, every later start is one more */
    gr_brokertest_start(&bt, NULL);
    gr_brokertest_halt(&bt);
    gr_log_level = GR_LOG_LEVEL_INFO;
    gr_brokertest_launch(&bt, NULL);
    epoch = elected(log, 0);
    ck_assert_int_ge(epoch, 1);
    ck_assert_int_le(epoch, 2);
    gr_brokertest_restart(&bt, NULL);
    ck_assert_int_eq(elected(log, epoch), epoch + 1);
    gr_brokertest_halt(&bt);
    unlink(log);

    snprintf(dir, sizeof dir, "%s/data/__cluster_metadata_local", bt.dir);
    loop = gr_loop_new();
    w = gr_workers_new(loop, 1);
    cfg = (gr_meta_cfg_t){ .loop = loop, .workers = w, .dir = dir };
    gr_log_level = GR_LOG_LEVEL_ERROR;
    m = gr_meta_local_open(&cfg, NULL, NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(
        gr_meta_get(m, "/controller_epoch", NULL, NULL, on_data, NULL), 0);
    for (int i = 0; i < 1000 && answers < 1; i++)
        gr_loop_run_for(loop, 10);
    ck_assert_int_eq(last_rc, GR_META_OK);
    /* Kafka's: 0 made, +1 per election; a clean stop kept the last */
    ck_assert_int_eq(atoi(data), epoch + 1);
    /* this open ended the broker's session: its ephemerals are gone */
    ck_assert_int_eq(gr_meta_get(m, "/controller", NULL, NULL, on_data, NULL),
                     0);
    ck_assert_int_eq(
        gr_meta_children(m, "/brokers/ids", NULL, NULL, on_children, NULL), 0);
    ck_assert_int_eq(
        gr_meta_children(m, "/brokers/topics", NULL, NULL, on_children, NULL),
        0);
    for (int i = 0; i < 1000 && answers < 4; i++)
        gr_loop_run_for(loop, 10);
    ck_assert_int_eq(answers, 4);
    ck_assert_int_eq(last_rc, GR_META_OK);
    gr_meta_close(m);
    for (int i = 0; i < 500 && gr_workers_pending(w) > 0; i++)
        gr_loop_run_for(loop, 10);
    gr_workers_destroy(w);
    gr_loop_drain_posts(loop);
    gr_loop_destroy(loop);

    gr_brokertest_launch(&bt, NULL);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Kafka's /controller (ControllerZNode, versions 1 and 2) and
 * /controller_epoch as written by Kafka and by us; anything else refused */
START_TEST(test_parse_znodes)
{
    static const char *ctl_ok[] = {
        "{\"version\":1,\"brokerid\":2,\"timestamp\":\"1796283812774\"}",
        "{\"version\":2,\"brokerid\":17,\"timestamp\":\"1\","
        "\"kraftControllerEpoch\":-1}",
        "{\"brokerid\" : 0}",
    };
    static const int ids[] = { 2, 17, 0 };
    static const char *ctl_bad[] = { "", "{}", "{\"brokerid\":-1}",
                                     "{\"brokerid\":\"1\"}",
                                     "{\"brokerid\":99999999999}",
                                     "{\"brokerid\":1x}" };
    int32_t v;
    for (size_t i = 0; i < sizeof ctl_ok / sizeof ctl_ok[0]; i++) {
        v = -1;
        ck_assert_int_eq(
            gr_broker_meta_parse_controller(ctl_ok[i], strlen(ctl_ok[i]), &v),
            0);
        ck_assert_int_eq(v, ids[i]);
    }
    for (size_t i = 0; i < sizeof ctl_bad / sizeof ctl_bad[0]; i++)
        ck_assert_int_eq(gr_broker_meta_parse_controller(
                             ctl_bad[i], strlen(ctl_bad[i]), &v),
                         -1);
    ck_assert_int_eq(gr_broker_meta_parse_controller("{\"brokerid\":1}\0x", 16,
                                                     &v),
                     -1); /* a NUL inside */
    ck_assert_int_eq(gr_broker_meta_parse_epoch("42", 2, &v), 0);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(gr_broker_meta_parse_epoch("0", 1, &v), 0);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(gr_broker_meta_parse_epoch("-1", 2, &v), -1);
    ck_assert_int_eq(gr_broker_meta_parse_epoch(" 1", 2, &v), -1);
    ck_assert_int_eq(gr_broker_meta_parse_epoch("1 ", 2, &v), -1);
    ck_assert_int_eq(gr_broker_meta_parse_epoch("2147483647", 10, &v), -1);
    ck_assert_int_eq(gr_broker_meta_parse_epoch("", 0, &v), -1);
}
END_TEST

Suite *
suite_meta_broker(void)
{
    Suite *s = suite_create("meta/broker");
    TCase *tc = tcase_create("broker");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_register_and_elect);
    tcase_add_test(tc, test_parse_znodes);
    suite_add_tcase(s, tc);
    return s;
}
