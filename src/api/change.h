/*
 * Admin changes that are stored before they are answered, one at a time
 * and in the order they came (Kafka's controller queue): CreateAcls,
 * DeleteAcls (the ACL file), AlterClientQuotas (the client-quota file),
 * AlterConfigs and IncrementalAlterConfigs (api/configs.h). A handler
 * checks what needs no state, then hands its request here; at its turn,
 * apply() makes the change on a copy (or prepares it) and words the
 * answer, store() has the cluster write the file off the loop, and
 * done() installs the change once the file is durable, or
 * drops it when the write failed (memory as before, the answer saying
 * so). So the loop never waits on a disk, checks see the old state until
 * the new one is stored, and a change sees every change before it.
 *
 * A request whose connection closes before its turn is dropped (the
 * client heard nothing); once its write started the change still holds
 * when stored, unanswered. Loop thread only.
 */
#ifndef GR_API_CHANGE_H
#define GR_API_CHANGE_H

#include <stdbool.h>

#include "cluster/cluster.h"
#include "net/conn.h"

typedef struct gr_change_ops {
    const char *what; /* "ACLs": for log lines */
    /* At the request's turn: makes the change, keeping what done() needs
     * in *state, and fills req->resp. 1: to be stored; 0: nothing to
     * store (answered at once); -1: apply ended the request itself
     * (gr_req_close). done() is called only after 1. */
    int (*apply)(gr_req_t *req, void **state);
    /* Stores what apply() made: calls cb(arg, err) exactly once, maybe
     * before it returns. */
    void (*store)(gr_broker_t *b, void *state, gr_cluster_stored_cb cb,
                  void *arg);
    /* After the store: err 0, the change holds from now on; else (an
     * errno) it is dropped and req's answer says so. req is NULL when
     * its connection closed meanwhile. Frees state. */
    void (*done)(gr_broker_t *b, gr_req_t *req, void *state, int err);
} gr_change_ops_t;

/* Defers req until its change is made and stored, then answers it.
 * Returns what a handler returns. */
int gr_change_submit(gr_req_t *req, const gr_change_ops_t *ops);
/* Frees what is left at shutdown (after the workers are drained: no
 * store is running then). */
void gr_changes_destroy(gr_broker_t *b);

#endif
