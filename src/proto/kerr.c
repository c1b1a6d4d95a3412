/* Kafka error code table: see kerr.h and protocol/errors.def. */
#include "proto/kerr.h"

#include <stdio.h>

typedef struct kerr_info {
    int16_t code;
    bool retriable;
    const char *name;
    const char *msg;
} kerr_info_t;

static const kerr_info_t table[] = {
#define X(name, code, retriable, msg) {code, retriable, #name, msg},
#include "errors.def"
#undef X
};

static const kerr_info_t *
find(gr_kerr_t e)
{
    /* codes are dense from -1 */
    size_t i = (size_t)(e + 1);
    if (e >= -1 && i < sizeof table / sizeof table[0] && table[i].code == e)
        return &table[i];
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == e)
            return &table[i];
    return NULL;
}

const char *
gr_kerr_name(gr_kerr_t e)
{
    static _Thread_local char unknown[32];
    const kerr_info_t *k = find(e);
    if (k)
        return k->name;
    snprintf(unknown, sizeof unknown, "UNKNOWN(%d)", (int)e);
    return unknown;
}

const char *
gr_kerr_msg(gr_kerr_t e)
{
    const kerr_info_t *k = find(e);
    return k ? k->msg : "Unknown error code.";
}

bool
gr_kerr_retriable(gr_kerr_t e)
{
    const kerr_info_t *k = find(e);
    return k ? k->retriable : false;
}
