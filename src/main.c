/*
 * gregor: a Kafka wire-protocol-compatible broker.
 *
 *   gregor [server.properties] [--override key=value]... [--listeners-file F]
 *          [--dump-frames DIR] [--log-level L] [--version] [--help]
 *   gregor ctl URL OP [key=value...]    (src/control/ctl.c)
 *
 * As Kafka's start script: an optional properties file, then overrides.
 */
#include "broker.h"
#include "control/control.h"
#include "core/fault.h"
#include "core/log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>



static gr_broker_t *the_broker;

static void
on_signal(int sig)
{
    (void)sig;
    if (the_broker)
        gr_broker_stop(the_broker);
}

static void
usage(FILE *f)
{
    fprintf(f,
            "Usage: gregor [server.properties] [--override key=value]...\n"
            "       gregor ctl URL OP [key=value...]   (gregor ctl --help)\n"
            "\n"
            "A Kafka wire-protocol-compatible broker. Configuration keys are "
            "Kafka's\nserver.properties names.\n"
            "\n"
            "Options:\n"
            "  --override key=value   set a configuration key (repeatable)\n"
            "  --listeners-file FILE  write the bound listeners to FILE once "
            "serving\n"
            "  --dump-frames DIR      keep the first request/response frame "
            "of each\n"
            "                         (api, version) under DIR\n"
            "  --emulate VERSION      look like Apache Kafka VERSION (2.8, "
            "3.0 ... 3.9,\n"
            "                         4.0 ... 4.3): only its API versions "
            "(gregor.\n"
            "                         emulate.version)\n"
            "  --log-level LEVEL      error, warn, info (default), debug, "
            "trace\n"
            "  --temp-data            keep data in a temporary directory "
            "removed at exit\n"
            "                         (gregor.temp.data=true), for a "
            "broker that lives\n"
            "                         as long as a test run; unless given, "
            "group.initial.\n"
            "                         rebalance.delay.ms=0 and one "
            "partition for each\n"
            "                         internal topic, and the control "
            "listener on\n"
            "                         http://127.0.0.1:0 (gregor."
            "control.listener)\n"
            "  --virtual-clock        the broker's clock stands still "
            "until advanced\n"
            "                         (gregor ctl URL advance 30s): "
            "session, rebalance\n"
            "                         and transaction timeouts, retention, "
            "quota windows\n"
            "                         and the times it writes follow it "
            "(gregor.virtual.\n"
            "                         clock)\n"
            "  --version              print the version and exit\n"
            "  --help                 print this help and exit\n");
}

int
main(int argc, char **argv)
{
    gr_conf_t *conf = gr_conf_new();
    const char *props = NULL, *lfile = NULL, *dump = NULL;
    char *emulate_kv = NULL;
    const char **overrides = calloc((size_t)argc, sizeof(char *));
    int noverrides = 0;
    const char *env_level = getenv("GREGOR_LOG_LEVEL");
    struct sigaction sa;
    int rc;

    if (argc > 1 && strcmp(argv[1], "ctl") == 0) {
        free(overrides);
        gr_conf_destroy(conf);
        return gr_ctl_main(argc - 1, argv + 1);
    }
    if (conf == NULL || overrides == NULL)
        return 1;
    if (env_level && gr_log_level_parse(env_level) >= 0)
        gr_log_level = gr_log_level_parse(env_level);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("gregor %s\n", PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "--override") == 0 && i + 1 < argc) {
            overrides[noverrides++] = argv[++i];
        } else if (strcmp(a, "--temp-data") == 0) {
            overrides[noverrides++] = "gregor.temp.data=true";
        } else if (strcmp(a, "--virtual-clock") == 0) {
            overrides[noverrides++] = "gregor.virtual.clock=true";
        } else if (strcmp(a, "--emulate") == 0 && i + 1 < argc) {
            emulate_kv = malloc(strlen(argv[i + 1]) + 32);
            if (emulate_kv == NULL)
                return 1;
            sprintf(emulate_kv, "gregor.emulate.version=%s", argv[++i]);
            overrides[noverrides++] = emulate_kv;
        } else if (strcmp(a, "--listeners-file") == 0 && i + 1 < argc) {
            lfile = argv[++i];
        } else if (strcmp(a, "--dump-frames") == 0 && i + 1 < argc) {
            dump = argv[++i];
        } else if (strcmp(a, "--log-level") == 0 && i + 1 < argc) {
            int l = gr_log_level_parse(argv[++i]);
            if (l < 0) {
                fprintf(stderr, "gregor: unknown log level '%s'\n", argv[i]);
                return 2;
            }
            gr_log_level = l;
        } else if (a[0] == '-') {
            fprintf(stderr, "gregor: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (props == NULL) {
            props = a;
        } else {
            fprintf(stderr, "gregor: only one properties file may be given\n");
            return 2;
        }
    }
    /* the file first; overrides win wherever they were given */
    if (props && gr_conf_load_file(conf, props) != 0)
        return 1;
    for (int i = 0; i < noverrides; i++) {
        if (gr_conf_set_kv(conf, overrides[i]) != 0) {
            fprintf(stderr, "gregor: --override expects key=value, got '%s'\n",
                    overrides[i]);
            return 2;
        }
    }
    free(overrides);
    free(emulate_kv);
    if (gr_conf_finish(conf) != 0) {
        GR_LOG_ERROR("invalid configuration; not starting");
        gr_conf_destroy(conf);
        return 1;
    }
    /* fault injection for tests (src/core/fault.h) */
    if (getenv("GREGOR_FAULTS") && getenv("GREGOR_FAULTS")[0]) {
        if (gr_fault_arm_spec(getenv("GREGOR_FAULTS")) != 0) {
            GR_LOG_ERROR("GREGOR_FAULTS='%s' is malformed (point[@match]:nth"
                         "[:count],...); not starting",
                         getenv("GREGOR_FAULTS"));
            gr_conf_destroy(conf);
            return 2;
        }
        GR_LOG_WARN("fault injection armed: GREGOR_FAULTS=%s",
                    getenv("GREGOR_FAULTS"));
    }
    the_broker = gr_broker_new(conf, lfile, dump);
    if (the_broker == NULL) {
        gr_conf_destroy(conf);
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    rc = gr_broker_run(the_broker);
    gr_broker_destroy(the_broker);
    the_broker = NULL;
    gr_conf_destroy(conf);
    GR_LOG_INFO("stopped");
    return rc == 0 ? 0 : 1;
}
