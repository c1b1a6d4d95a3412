/*
 * The OTLP metrics a client pushes (KIP-714: PushTelemetry's Metrics, once
 * decompressed, is an opentelemetry.proto.metrics.v1.MetricsData in
 * protobuf's binary form), decoded into one JSON line per data point for
 * the telemetry sink (export.c). Written for hostile input: it reads only
 * p[0..n), bounds nesting, and either accepts the whole payload or
 * nothing.
 *
 * What is read, by the .proto field numbers (wire type in brackets):
 *
 *   MetricsData      1 resource_metrics [2]
 *   ResourceMetrics  1 resource [2], 2 scope_metrics [2]
 *   Resource         1 attributes [2] (KeyValue)
 *   ScopeMetrics     2 metrics [2]
 *   Metric           1 name [2], one of 5 gauge [2], 7 sum [2]
 *                    (9 histogram, 10 exponential_histogram, 11 summary
 *                    are counted, not written)
 *   Gauge            1 data_points [2]
 *   Sum              1 data_points [2], 2 aggregation_temporality [0],
 *                    3 is_monotonic [0]
 *   NumberDataPoint  7 attributes [2], 2 start_time_unix_nano [1],
 *                    3 time_unix_nano [1], one of 4 as_double [1],
 *                    6 as_int [1]
 *   KeyValue         1 key [2], 2 value [2] (AnyValue)
 *   AnyValue         one of 1 string_value [2], 2 bool_value [0],
 *                    3 int_value [0], 4 double_value [1], 5 array_value
 *                    [2] (ArrayValue: 1 values [2]), 6 kvlist_value [2]
 *                    (KeyValueList: 1 values [2]), 7 bytes_value [2]
 *
 * As protobuf's parsers do: a field with another number or wire type is
 * skipped as unknown, the last of a scalar field wins, a repeated message
 * field's occurrences add up, and of a oneof the last member set wins
 * (its occurrences since another member was set merge). Malformed: a
 * varint over 10 bytes, a length past its message, wire types 3, 4 (groups,
 * never written by proto3 encoders), 6 and 7, field number 0, a string
 * read (names, keys, string values) that is not UTF-8, AnyValue nested
 * more than 32 deep. Fields that are skipped are only length-checked.
 *
 * A line (members in this order; prefix is the caller's, e.g. the client
 * instance and client ids):
 *
 *   {<prefix>"metric":NAME,"type":"gauge"|"sum",["temporality":
 *    "delta"|"cumulative"|"unspecified","monotonic":BOOL,]"value":V,
 *    "time_unix_nano":N,"start_time_unix_nano":N,"attributes":{...},
 *    "resource":{...}}
 *
 * V is the integer or the double (shortest form that reads back the same;
 * NaN and infinities as the strings "NaN", "Infinity", "-Infinity", as
 * protobuf's JSON mapping writes them), null when the point has neither.
 * Attribute values map as AnyValue does in that mapping: strings, true or
 * false, numbers, arrays, objects, bytes in base64; an empty AnyValue is
 * null. Thread-safe (no state).
 */
#ifndef GR_TELEMETRY_OTLP_H
#define GR_TELEMETRY_OTLP_H

#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gr_otlp_stats {
    int64_t metrics; /* Metric messages, of every kind */
    int64_t points;  /* gauge and sum data points: the lines written */
    int64_t skipped; /* metrics of other kinds (histograms, summaries) */
} gr_otlp_stats_t;

/* Decodes MetricsData p[0..n) and appends its lines to out, each
 * beginning with prefix (JSON members followed by a comma, or ""). 0, or
 * -1 when p is malformed (why says where, in why_len bytes) or out ran
 * out of memory (out->oom); out is then as it was. */
int gr_otlp_to_jsonl(const uint8_t *p, size_t n, const char *prefix,
                     gr_buf_t *out, gr_otlp_stats_t *st, char *why,
                     size_t why_len);

#endif
