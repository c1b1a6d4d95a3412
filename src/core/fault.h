/*
 * Fault injection points (SQLite's sqlite3FaultSim): GR_FAULT("log.write",
 * where) is true when that point is armed for where (a path) and this is
 * a chosen hit; the caller then behaves as if its system call failed.
 * Points are always compiled; while nothing is armed each costs one
 * predictable branch on a global flag. They are armed by tests
 * (gr_fault_arm) or at start-up from the environment:
 *
 *   GREGOR_FAULTS=point[@match]:nth[:count][,...]
 *
 *   point  log.write        a segment append fails (EIO), nothing written
 *          log.write.short  half of the append reaches the file, then EIO
 *          log.nospace      half of it reaches the file, then ENOSPC
 *          log.fsync        an fsync of a partition's segments fails
 *          log.segment      creating a segment file (roll) fails
 *          cleaner.read, cleaner.write, cleaner.fsync   the log cleaner's I/O
 *          produce.response a Produce whose records were appended loses
 *                           its response (the client retries)
 *          txn.marker       writing a transaction marker fails
 *          topic.store      writing a topic's metadata file, or the
 *                           record of its deletion, fails (EIO; where:
 *                           the file's path, gregor-topics/deleted~<id>
 *                           for a record)
 *          client_metrics.store, broker_config.store  writing the
 *                           client-metrics subscriptions
 *                           (gregor-configs/client-metrics) or dynamic
 *                           broker configs (gregor-configs/broker-<id>,
 *                           broker-default) fails (EIO); counted on the
 *                           loop, failed on the worker
 *          acls.store, client_quotas.store  writing the ACLs
 *                           (gregor-configs/acls) or the client quotas
 *                           (gregor-configs/client-quotas) fails (EIO);
 *                           counted on the loop, failed on the worker
 *          trash.kill       the broker kills itself (SIGKILL) before it
 *                           renames a deleted partition's directory aside
 *                           (where: the directory): a crash mid-deletion
 *   match  only hits whose path contains this string (e.g. "/mytopic-0")
 *   nth    the nth matching hit is the first to fail (1: the next)
 *   count  consecutive matching hits that fail from there (default 1;
 *          0: every one from then on)
 *
 * Loop thread only.
 */
#ifndef GR_CORE_FAULT_H
#define GR_CORE_FAULT_H

#include <stdbool.h>

extern bool gr_fault_armed; /* some point is armed */

#define GR_FAULT(name, where) \
    (__builtin_expect(gr_fault_armed, 0) && gr_fault_hit(name, where))

/* Makes the nth next hit of point name fail (1: the next one), once, for
 * any path. Arming a point again replaces it. At most 8 points. */
void gr_fault_arm(const char *name, int nth);
/* Arms points from a GREGOR_FAULTS value (above). 0, or -1 when spec is
 * malformed (nothing armed then). */
int gr_fault_arm_spec(const char *spec);
/* Disarms every point. */
void gr_fault_clear(void);
/* Counts a hit of name at where (may be NULL); true when it must fail. */
bool gr_fault_hit(const char *name, const char *where);

#endif
