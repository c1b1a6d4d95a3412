/*
 * The queue of stored admin changes (change.h). Invariants: q->running
 * is the one change whose store() has not called back; the others wait
 * in q->head..q->tail in arrival order and none is applied before
 * running is done.
 */
#include "api/change.h"

#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "core/log.h"

typedef struct change {
    struct change *next;
    gr_req_t *req; /* NULL once its connection closed */
    const gr_change_ops_t *ops;
    void *state;
    struct gr_changes *q;
} change_t;

struct gr_changes {
    gr_broker_t *b;
    change_t *head, *tail; /* waiting their turn */
    change_t *running;     /* its file being written */
    bool kicking;          /* in kick(): a store that calls back at once
                            * leaves the next to the loop there */
};

static void kick(struct gr_changes *q);

static void
change_abort(gr_req_t *req)
{
    change_t *ch = req->owner;
    ch->req = NULL;
}

static void
stored(void *arg, int err)
{
    change_t *ch = arg;
    struct gr_changes *q = ch->q;

    ch->ops->done(q->b, ch->req, ch->state, err);
    if (ch->req != NULL)
        gr_req_reply(ch->req);
    q->running = NULL;
    free(ch);
    kick(q);
}

static void
kick(struct gr_changes *q)
{
    if (q->kicking)
        return;
    q->kicking = true;
    while (q->running == NULL && q->head != NULL) {
        change_t *ch = q->head;
        int rc;
        if ((q->head = ch->next) == NULL)
            q->tail = NULL;
        if (ch->req == NULL) {
            GR_LOG_INFO("a change of the %s dropped: its connection closed "
                        "before its turn",
                        ch->ops->what);
            free(ch);
            continue;
        }
        rc = ch->ops->apply(ch->req, &ch->state);
        if (rc <= 0) {
            if (rc == 0)
                gr_req_reply(ch->req);
            free(ch);
            continue;
        }
        q->running = ch;
        ch->ops->store(q->b, ch->state, stored, ch); /* may free ch */
    }
    q->kicking = false;
}

int
gr_change_submit(gr_req_t *req, const gr_change_ops_t *ops)
{
    gr_broker_t *b = req->broker;
    struct gr_changes *q = b->changes;
    change_t *ch;

    if (q == NULL) {
        if ((q = calloc(1, sizeof *q)) == NULL)
            return gr_req_close(req, "out of memory");
        q->b = b;
        b->changes = q;
    }
    if ((ch = calloc(1, sizeof *ch)) == NULL)
        return gr_req_close(req, "out of memory");
    ch->req = req;
    ch->ops = ops;
    ch->q = q;
    if (q->tail != NULL)
        q->tail->next = ch;
    else
        q->head = ch;
    q->tail = ch;
    gr_req_defer(req, change_abort, ch);
    kick(q);
    return 0;
}

void
gr_changes_destroy(gr_broker_t *b)
{
    struct gr_changes *q = b->changes;
    if (q == NULL)
        return;
    GR_ASSERT(q->running == NULL);
    for (change_t *ch = q->head, *nx; ch != NULL; ch = nx) {
        nx = ch->next;
        free(ch); /* their connections are closed */
    }
    free(q);
    b->changes = NULL;
}
