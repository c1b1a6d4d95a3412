/*
 * Fault injection points (SQLite's sqlite3FaultSim): GR_FAULT("log.write")
 * is true when a test armed that point and this is the chosen hit; the
 * caller then behaves as if its system call failed. Without
 * GR_FAULT_INJECTION (configure --enable-fault-injection) GR_FAULT() is the
 * constant 0 and the points cost nothing. Loop thread only.
 *
 * Points: "log.write" (segment append), "log.fsync" (flush),
 * "log.segment" (creating a segment file on roll).
 */
#ifndef GR_CORE_FAULT_H
#define GR_CORE_FAULT_H

#include <stdbool.h>

#ifdef GR_FAULT_INJECTION
#define GR_FAULT(name) gr_fault_hit(name)
#else
#define GR_FAULT(name) 0
#endif

/* Makes the nth next hit of point name fail (1: the next one), once.
 * Arming a point again replaces its count. At most 8 points at a time. */
void gr_fault_arm(const char *name, int nth);
/* Disarms every point. */
void gr_fault_clear(void);
/* Counts a hit of name; true when it is the armed one. */
bool gr_fault_hit(const char *name);

#endif
