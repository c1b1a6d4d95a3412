/*
 * The Prometheus text exposition format, version 0.0.4 (what /metrics
 * answers, src/control/metrics.c), written into a gr_buf_t:
 *
 *   # HELP name text            text: '\' and newline escaped as \\ and \n
 *   # TYPE name counter|gauge|histogram|untyped
 *   name{label="value",...} 12  values: '\', '"' and newline escaped as
 *                               \\, \" and \n; bytes that are not UTF-8
 *                               become U+FFFD (the format is UTF-8)
 *
 * Every sample of a family follows its HELP and TYPE lines, and a
 * family appears once. Names and label names are the caller's (valid
 * ones: [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]*); names from
 * elsewhere (pushed client metrics) go through gr_prom_sanitize() first.
 * No state; any thread.
 */
#ifndef GR_CONTROL_PROM_H
#define GR_CONTROL_PROM_H

#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The HELP and TYPE lines of family name. */
void gr_prom_family(gr_buf_t *o, const char *name, const char *type,
                    const char *help);

/* A sample, in pieces: gr_prom_begin(o, name, suffix) (suffix "_bucket",
 * "_sum", ... or NULL), then any number of gr_prom_label(), then one
 * gr_prom_end_*() with the value. s tells whether a label was written. */
typedef struct gr_prom_sample {
    gr_buf_t *o;
    bool labels;
} gr_prom_sample_t;

gr_prom_sample_t gr_prom_begin(gr_buf_t *o, const char *name,
                               const char *suffix);
/* value: n bytes (n == (size_t)-1: a C string). */
void gr_prom_label(gr_prom_sample_t *s, const char *name, const char *value,
                   size_t n);
void gr_prom_label_int(gr_prom_sample_t *s, const char *name, int64_t v);
void gr_prom_end_int(gr_prom_sample_t *s, int64_t v);
/* NaN, +Inf and -Inf as the format spells them; else the shortest form
 * that reads back the same. */
void gr_prom_end_double(gr_prom_sample_t *s, double v);

/* An escaped label value (no quotes), and an escaped HELP text. */
void gr_prom_escape_value(gr_buf_t *o, const char *s, size_t n);
void gr_prom_escape_help(gr_buf_t *o, const char *s);
/* s[0..n) as a valid name into out (outsz > 0): every character outside
 * [a-zA-Z0-9_] (and ':' unless label) becomes '_', a leading digit gets
 * a '_' before it, and a label name never starts with "__" (reserved).
 * Returns the length written (cut at outsz - 1). */
size_t gr_prom_sanitize(char *out, size_t outsz, const char *s, size_t n,
                        bool label);

#endif
