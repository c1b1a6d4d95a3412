/* Fault injection points: see fault.h. A tiny table of armed names. */
#include "core/fault.h"

#include <string.h>

#define FAULT_MAX 8

static struct {
    const char *name; /* static string of the caller; NULL: free slot */
    int left;         /* hits before the failing one */
} armed[FAULT_MAX];

void
gr_fault_arm(const char *name, int nth)
{
    int free_slot = -1;
    for (int i = 0; i < FAULT_MAX; i++) {
        if (armed[i].name && strcmp(armed[i].name, name) == 0) {
            armed[i].left = nth - 1;
            return;
        }
        if (!armed[i].name && free_slot < 0)
            free_slot = i;
    }
    if (free_slot >= 0) {
        armed[free_slot].name = name;
        armed[free_slot].left = nth - 1;
    }
}

void
gr_fault_clear(void)
{
    memset(armed, 0, sizeof armed);
}

bool
gr_fault_hit(const char *name)
{
    for (int i = 0; i < FAULT_MAX; i++) {
        if (!armed[i].name || strcmp(armed[i].name, name) != 0)
            continue;
        if (armed[i].left-- > 0)
            return false;
        armed[i].name = NULL;
        return true;
    }
    return false;
}
