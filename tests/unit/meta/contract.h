/*
 * The gr_meta contract (src/meta/meta.h) as test cases that run over any
 * engine: meta_local in the unit suite "meta/contract" (check_local.c),
 * meta_zk against a real ensemble in tests/zk/check_meta_zk.c. A case
 * talks to T.m through the synchronous helpers below (each call, then the
 * loop until its answer); the engine opens and closes through
 * meta_engine, with one fresh store (a directory, a chroot) per case.
 */
#ifndef GR_TESTS_META_CONTRACT_H
#define GR_TESTS_META_CONTRACT_H

#include <check.h>
#include <stdbool.h>

#include "core/loop.h"
#include "core/worker.h"
#include "meta/meta.h"

typedef struct meta_engine {
    const char *name;
    /* a fresh store's name into where (n bytes), e.g. a new directory */
    void (*fresh)(char *where, size_t n);
    gr_meta_t *(*open)(gr_loop_t *loop, gr_workers_t *workers,
                       const char *where, gr_meta_session_cb cb, void *arg);
    void (*remove)(const char *where); /* after the case; may be NULL */
    bool multi_create_stat; /* a multi's create answers with its stat */
} meta_engine_t;

typedef struct {
    char dir[512]; /* the store: meta_engine's where */
    gr_loop_t *loop;
    gr_workers_t *workers;
    gr_meta_t *m;
    int sessions;
    int64_t session_id;
    /* the last answer */
    int answers, rc;
    char path[256];
    char data[256];
    size_t len;
    gr_meta_stat_t st;
    char names[16][64];
    int n;
    gr_meta_result_t res[8];
    char res_path[8][64];
    /* events, in order with answers: "W<ev>:<path> " or "A " */
    char trace[1024];
} t_t;

extern t_t T;
extern const meta_engine_t *meta_engine;

void meta_setup(void);
void meta_teardown(void);
void meta_open(void);
void meta_close(void);
void wait_answers(int want);
void on_watch(void *arg, gr_meta_event_t ev, const char *path);
void on_create(void *arg, int rc, const char *path, const gr_meta_stat_t *st);
void on_data(void *arg, int rc, const void *data, size_t len,
             const gr_meta_stat_t *st);
int create(const char *path, const char *data, int flags);
int get(const char *path, bool watch);
int exists(const char *path, bool watch);
int children(const char *path, bool watch);
int multi(const gr_meta_op_t *ops, int n);
int set(const char *path, const char *data, int32_t version);
int del(const char *path, int32_t version);

/* The contract's cases, added to tc, over engine e. */
void meta_contract_add(TCase *tc, const meta_engine_t *e);

#endif
