/*
 * gr_kerr_t: a Kafka error code as it goes on the wire (int16). The table is
 * protocol/errors.def; GR_KERR_<NAME> names each code.
 */
#ifndef GR_PROTO_KERR_H
#define GR_PROTO_KERR_H

#include <stdbool.h>
#include <stdint.h>

typedef int16_t gr_kerr_t;

enum gr_kerr_names {
#define X(name, code, retriable, msg) GR_KERR_##name = (code),
#include "errors.def"
#undef X
};

/* "UNKNOWN_TOPIC_OR_PARTITION"; "UNKNOWN(<code>)" for codes not in the table
 * (a static buffer: loop thread only). */
const char *gr_kerr_name(gr_kerr_t e);
const char *gr_kerr_msg(gr_kerr_t e);
bool gr_kerr_retriable(gr_kerr_t e);

#endif
