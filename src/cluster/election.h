/*
 * The controller's rule for a partition's leader and ISR against the live
 * brokers (cluster mode), as Kafka's ZooKeeper-mode controller applies it
 * when brokers come and go: Election.leaderForOffline (the
 * OfflinePartitionLeaderElectionStrategy) for a partition without a live
 * leader, ReplicaStateMachine.removeReplicasFromIsr for the replicas that
 * went. A pure function: no store, no model.
 */
#ifndef GR_CLUSTER_ELECTION_H
#define GR_CLUSTER_ELECTION_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gr_election {
    const int32_t *replicas; /* the assignment, in its order */
    int nreplicas;
    const int32_t *isr;
    int nisr;
    int32_t leader; /* -1: none */
    const int32_t *live; /* the brokers registered, any order */
    int nlive;
    bool unclean; /* unclean.leader.election.enable */
} gr_election_t;

/*
 * The state the partition should have:
 *  - its leader live: the ISR without the brokers that are not (the
 *    leader stays);
 *  - else the first replica, in assignment order, live and in the ISR
 *    leads, the ISR its live members;
 *  - else, when unclean, the first live replica leads, the ISR it alone;
 *  - else no leader (-1) and the ISR its live members, or, when none is,
 *    one member kept (Kafka never empties an ISR: it keeps its last
 *    member; here the old leader when it is in the ISR, else the first),
 *    so that member leads again when it returns.
 * *leader and isr[] (room for in->nisr + 1) get it; *nisr its size.
 * Returns true when that differs from in's (a new state to write, at the
 * next leader epoch), false when nothing is to change.
 */
bool gr_election_decide(const gr_election_t *in, int32_t *leader,
                        int32_t *isr, int *nisr);

#endif
