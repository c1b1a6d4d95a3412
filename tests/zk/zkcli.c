/*
 * zkcli: reads a ZooKeeper ensemble with ZooKeeper's own C client (linked,
 * not Gregor's meta_zk), so the cluster tests check what the brokers
 * wrote with code that is not theirs.
 *
 *   zkcli HOSTS get PATH     the data, then a newline
 *   zkcli HOSTS ls PATH      the children, one a line, sorted
 *   zkcli HOSTS stat PATH    "czxid=N version=N ephemeralOwner=0xN"
 *   zkcli HOSTS create PATH DATA   a persistent node (a test's fake
 *                                  broker registration)
 *   zkcli HOSTS set PATH DATA      its data, any version (a test playing
 *                                  the controller)
 *
 * Exit 0, 3 when PATH does not exist, 1 on any other failure (10 s to
 * connect at most).
 */
#define THREADED 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zookeeper/zookeeper.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int connected;

static void
watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh, (void)path, (void)ctx;
    if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
        pthread_mutex_lock(&mu);
        connected = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
    zhandle_t *zh;
    struct timespec dl;
    struct Stat st;
    int rc, ok;

    if (argc != 4 && !(argc == 5 && (strcmp(argv[2], "create") == 0 ||
                                     strcmp(argv[2], "set") == 0))) {
        fprintf(stderr, "usage: zkcli HOSTS get|ls|stat PATH | "
                        "create|set PATH DATA\n");
        return 1;
    }
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    zh = zookeeper_init(argv[1], watcher, 10000, NULL, NULL, 0);
    if (zh == NULL)
        return 1;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    pthread_mutex_lock(&mu);
    while (!connected && pthread_cond_timedwait(&cv, &mu, &dl) == 0)
        ;
    ok = connected;
    pthread_mutex_unlock(&mu);
    if (!ok) {
        fprintf(stderr, "zkcli: no session with %s in 10 s\n", argv[1]);
        zookeeper_close(zh);
        return 1;
    }
    if (strcmp(argv[2], "get") == 0) {
        static char buf[1 << 20];
        int len = sizeof buf;
        rc = zoo_get(zh, argv[3], 0, buf, &len, &st);
        if (rc == ZOK)
            printf("%.*s\n", len > 0 ? len : 0, buf);
    } else if (strcmp(argv[2], "ls") == 0) {
        struct String_vector sv = { 0, NULL };
        rc = zoo_get_children(zh, argv[3], 0, &sv);
        if (rc == ZOK) {
            qsort(sv.data, (size_t)sv.count, sizeof(char *), cmp);
            for (int i = 0; i < sv.count; i++)
                printf("%s\n", sv.data[i]);
            deallocate_String_vector(&sv);
        }
    } else if (strcmp(argv[2], "stat") == 0) {
        rc = zoo_exists(zh, argv[3], 0, &st);
        if (rc == ZOK)
            printf("czxid=%lld version=%d ephemeralOwner=0x%llx\n",
                   (long long)st.czxid, st.version,
                   (unsigned long long)st.ephemeralOwner);
    } else if (strcmp(argv[2], "create") == 0) {
        rc = zoo_create(zh, argv[3], argv[4], (int)strlen(argv[4]),
                        &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
    } else if (strcmp(argv[2], "set") == 0) {
        rc = zoo_set(zh, argv[3], argv[4], (int)strlen(argv[4]), -1);
    } else {
        fprintf(stderr, "zkcli: %s: not get, ls, stat, create or set\n",
                argv[2]);
        rc = ZBADARGUMENTS;
    }
    if (rc != ZOK && rc != ZNONODE)
        fprintf(stderr, "zkcli: %s %s: %s\n", argv[2], argv[3], zerror(rc));
    zookeeper_close(zh);
    return rc == ZOK ? 0 : rc == ZNONODE ? 3 : 1;
}
