/*
 * gr_election_decide (election.h): Kafka's controller rule for a
 * partition when brokers come and go.
 */
#include "cluster/election.h"

static bool
has(const int32_t *v, int n, int32_t id)
{
    for (int i = 0; i < n; i++)
        if (v[i] == id)
            return true;
    return false;
}

/* in's ISR members that are live, in its order; their number */
static int
live_isr(const gr_election_t *in, int32_t *out)
{
    int n = 0;
    for (int i = 0; i < in->nisr; i++)
        if (has(in->live, in->nlive, in->isr[i]) &&
            !has(out, n, in->isr[i]))
            out[n++] = in->isr[i];
    return n;
}

static bool
differs(const gr_election_t *in, int32_t leader, const int32_t *isr,
        int nisr)
{
    if (leader != in->leader || nisr != in->nisr)
        return true;
    for (int i = 0; i < nisr; i++)
        if (isr[i] != in->isr[i])
            return true;
    return false;
}

bool
gr_election_decide(const gr_election_t *in, int32_t *leader, int32_t *isr,
                   int *nisr)
{
    int n;

    if (in->leader >= 0 && has(in->live, in->nlive, in->leader)) {
        /* removeReplicasFromIsr: the leader stays, the gone leave */
        n = live_isr(in, isr);
        if (n == 0) { /* a leader outside its ISR: left as it is */
            for (int i = 0; i < in->nisr; i++)
                isr[i] = in->isr[i];
            n = in->nisr;
        }
        *leader = in->leader;
        *nisr = n;
        return differs(in, *leader, isr, n);
    }
    /* leaderForOffline: the first live replica of the ISR */
    for (int r = 0; r < in->nreplicas; r++) {
        int32_t id = in->replicas[r];
        if (has(in->live, in->nlive, id) && has(in->isr, in->nisr, id)) {
            *leader = id;
            *nisr = live_isr(in, isr);
            return differs(in, *leader, isr, *nisr);
        }
    }
    if (in->unclean)
        for (int r = 0; r < in->nreplicas; r++)
            if (has(in->live, in->nlive, in->replicas[r])) {
                *leader = in->replicas[r];
                isr[0] = *leader;
                *nisr = 1;
                return differs(in, *leader, isr, 1);
            }
    /* no leader: the ISR's live members (none), or one kept */
    *leader = -1;
    n = live_isr(in, isr);
    if (n == 0 && in->nisr > 0) {
        isr[0] = has(in->isr, in->nisr, in->leader) ? in->leader : in->isr[0];
        n = 1;
    }
    *nisr = n;
    return differs(in, *leader, isr, n);
}
