/* A broker running in a thread for handler tests: requests go in as
 * generated structs over a real connection, responses come back decoded
 * (bytes in, bytes out, through the dispatcher). */
#ifndef GR_TESTS_BROKERTEST_H
#define GR_TESTS_BROKERTEST_H

#include <pthread.h>
#include <stdbool.h>

#include "broker.h"
#include "core/arena.h"
#include "core/str.h"

typedef struct gr_brokertest {
    char dir[64]; /* a fresh directory under /tmp */
    gr_conf_t *conf;
    gr_broker_t *b;
    pthread_t thread;
    int fd; /* the client connection */
    int32_t corr;
    gr_arena_t *a;    /* decoded responses; reset by the caller */
    int saved_stdout; /* the broker's start-up lines go to /dev/null */
    int hold[2];      /* gr_brokertest_hold_workers()' pipe; -1: none */
} gr_brokertest_t;

/* Starts a broker with overrides ("key=value", NULL-terminated; may be
 * NULL) in a new directory and connects to it. */
void gr_brokertest_start(gr_brokertest_t *t, const char *const *overrides);
/* Stops the broker and starts another on the same directory. */
void gr_brokertest_restart(gr_brokertest_t *t, const char *const *overrides);
/* The two halves of a restart, for a test that changes the directory in
 * between: stops the broker (keeping the directory); starts another. */
void gr_brokertest_halt(gr_brokertest_t *t);
void gr_brokertest_launch(gr_brokertest_t *t, const char *const *overrides);
/* Stops the broker and removes the directory. */
void gr_brokertest_stop(gr_brokertest_t *t);
/* Sends request rq (the generated struct of api key, version ver) and
 * returns the decoded response (in t->a). Fails the test on any error. */
void *gr_brokertest_call(gr_brokertest_t *t, int key, int16_t ver,
                         const void *rq);
/* Sends request rq; true when the broker closes the connection instead
 * of answering (the connection is then unusable: stop the broker). */
bool gr_brokertest_call_closed(gr_brokertest_t *t, int key, int16_t ver,
                               const void *rq);
/* Another connection to the broker (a file descriptor), for requests
 * sent with gr_brokertest_send_on and answers read with gr_brokertest_drain. */
int gr_brokertest_connect(gr_brokertest_t *t);
/* Writes request rq on fd without waiting for the answer. */
void gr_brokertest_send_on(gr_brokertest_t *t, int fd, int key,
                           int16_t ver, const void *rq);
/* Reads one answer on fd and drops it (through a small buffer); returns
 * its size. */
size_t gr_brokertest_drain(int fd);
/* FindCoordinator for a group (key_type 0) or transactional id (1), until
 * the coordinator is there (its internal topic made and loaded). */
void gr_brokertest_coordinator(gr_brokertest_t *t, const char *key,
                               int8_t key_type);
/* The same with extra_len bytes of extra written after the body. */
void *gr_brokertest_call_extra(gr_brokertest_t *t, int key, int16_t ver,
                               const void *rq, const void *extra,
                               size_t extra_len);
/* The two halves of a call, for requests sent without waiting: writes
 * rq and returns its correlation id; reads the next response, which must
 * carry correlation id corr, and returns it decoded (in t->a). */
int32_t gr_brokertest_send(gr_brokertest_t *t, int key, int16_t ver,
                           const void *rq);
void *gr_brokertest_recv(gr_brokertest_t *t, int key, int16_t ver,
                         int32_t corr);
/* Holds the broker's worker threads: jobs of the test's, queued first,
 * wait until gr_brokertest_release_workers(), so whatever the broker
 * hands the workers after this (a file write) waits behind them. */
void gr_brokertest_hold_workers(gr_brokertest_t *t);
void gr_brokertest_release_workers(gr_brokertest_t *t);
/* Whether data (an answer) arrives on fd within ms. */
bool gr_brokertest_readable(int fd, int ms);
/* gr_brokertest_send() and _recv() on another connection (fd). */
void *gr_brokertest_call_on(gr_brokertest_t *t, int fd, int key, int16_t ver,
                            const void *rq);
int32_t gr_brokertest_send_fd(gr_brokertest_t *t, int fd, int key,
                              int16_t ver, const void *rq);
void *gr_brokertest_recv_fd(gr_brokertest_t *t, int fd, int key, int16_t ver,
                            int32_t corr);

/* CreateTopics v7 of one topic (replication factor 1) with one config
 * key=value (key may be NULL); fails the test unless it is created.
 * Returns the topic's id. */
gr_uuid_t gr_brokertest_create_topic(gr_brokertest_t *t, const char *name,
                                     int32_t nparts, const char *key,
                                     const char *value);

#endif
