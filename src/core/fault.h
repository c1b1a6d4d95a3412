/*
 * Fault injection points (SQLite's sqlite3FaultSim): GR_FAULT("log.write")
 * is true when a test armed that point and this is a chosen hit; the
 * caller then behaves as if its system call failed. Points are always
 * compiled; while nothing is armed each costs one predictable branch on a
 * global flag. They are armed by unit tests (gr_fault_arm) or at start-up
 * from the environment (src/main.c):
 *
 *   GREGOR_FAULTS=point:nth[:count][,...]
 *
 *   nth    the nth hit is the first to fail (1: the next)
 *   count  consecutive hits that fail from there (default 1; 0: every one
 *          from then on)
 *
 * Points: "log.write" (segment append), "log.fsync" (flush),
 * "log.segment" (creating a segment file on roll), "produce.response"
 * (a Produce whose records were appended loses its response),
 * "txn.marker" (a transaction marker cannot be appended: the transaction
 * stays in PrepareCommit/PrepareAbort and is retried).
 * Loop thread only.
 */
#ifndef GR_CORE_FAULT_H
#define GR_CORE_FAULT_H

#include <stdbool.h>

extern bool gr_fault_armed; /* some point is armed */

#define GR_FAULT(name) \
    (__builtin_expect(gr_fault_armed, 0) && gr_fault_hit(name))

/* Makes the nth next hit of point name fail (1: the next one), once.
 * Arming a point again replaces its count. At most 8 points at a time. */
void gr_fault_arm(const char *name, int nth);
/* Arms points from a GREGOR_FAULTS value (above). 0, or -1 when spec is
 * malformed (nothing armed then). */
int gr_fault_arm_spec(const char *spec);
/* Disarms every point. */
void gr_fault_clear(void);
/* Counts a hit of name; true when it is an armed one. */
bool gr_fault_hit(const char *name);

#endif
