/* Fault injection points: see fault.h. A tiny table of armed points. */
#include "core/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAULT_MAX 8

bool gr_fault_armed;

static struct {
    char name[32];   /* "": free slot */
    char match[128]; /* "": any path */
    int skip;        /* matching hits to let through first */
    int fail;        /* hits that fail then; 0: all */
    bool forever;
} points[FAULT_MAX];

static void
update_armed(void)
{
    gr_fault_armed = false;
    for (int i = 0; i < FAULT_MAX; i++)
        if (points[i].name[0])
            gr_fault_armed = true;
}

static int
arm(const char *name, size_t nlen, const char *match, size_t mlen, int nth,
    int count)
{
    int slot = -1;
    if (nlen == 0 || nlen >= sizeof points[0].name ||
        mlen >= sizeof points[0].match || nth < 1 || count < 0)
        return -1;
    for (int i = 0; i < FAULT_MAX; i++) {
        if (points[i].name[0] && strlen(points[i].name) == nlen &&
            strncmp(points[i].name, name, nlen) == 0 &&
            strlen(points[i].match) == mlen &&
            strncmp(points[i].match, match, mlen) == 0) {
            slot = i;
            break;
        }
        if (!points[i].name[0] && slot < 0)
            slot = i;
    }
    if (slot < 0)
        return -1;
    memcpy(points[slot].name, name, nlen);
    points[slot].name[nlen] = '\0';
    memcpy(points[slot].match, match, mlen);
    points[slot].match[mlen] = '\0';
    points[slot].skip = nth - 1;
    points[slot].fail = count;
    points[slot].forever = count == 0;
    update_armed();
    return 0;
}

void
gr_fault_arm(const char *name, int nth)
{
    arm(name, strlen(name), "", 0, nth, 1);
}

int
gr_fault_arm_spec(const char *spec)
{
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ','), *colon, *at;
        char num[64], *e;
        size_t len = end ? (size_t)(end - p) : strlen(p);
        long nth, count = 1;

        colon = memchr(p, ':', len);
        if (colon == NULL)
            goto bad;
        at = memchr(p, '@', (size_t)(colon - p));
        /* nth[:count] */
        if ((size_t)(p + len - colon - 1) >= sizeof num)
            goto bad;
        memcpy(num, colon + 1, (size_t)(p + len - colon - 1));
        num[p + len - colon - 1] = '\0';
        nth = strtol(num, &e, 10);
        if (e == num || nth < 1 || nth > 1000000000)
            goto bad;
        if (*e == ':') {
            char *e2;
            count = strtol(e + 1, &e2, 10);
            if (e2 == e + 1 || *e2 != '\0' || count < 0 || count > 1000000000)
                goto bad;
        } else if (*e != '\0') {
            goto bad;
        }
        if (arm(p, (size_t)((at ? at : colon) - p), at ? at + 1 : "",
                at ? (size_t)(colon - at - 1) : 0, (int)nth, (int)count) != 0)
            goto bad;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
bad:
    gr_fault_clear();
    return -1;
}

void
gr_fault_clear(void)
{
    memset(points, 0, sizeof points);
    gr_fault_armed = false;
}

bool
gr_fault_hit(const char *name, const char *where)
{
    for (int i = 0; i < FAULT_MAX; i++) {
        if (!points[i].name[0] || strcmp(points[i].name, name) != 0)
            continue;
        if (points[i].match[0] &&
            (where == NULL || strstr(where, points[i].match) == NULL))
            continue;
        if (points[i].skip > 0) {
            points[i].skip--;
            return false;
        }
        if (!points[i].forever && --points[i].fail == 0) {
            points[i].name[0] = '\0';
            update_armed();
        }
        return true;
    }
    return false;
}
