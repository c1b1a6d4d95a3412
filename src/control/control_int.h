/* Private to src/control/: see control.h. */
#ifndef GR_CONTROL_CONTROL_INT_H
#define GR_CONTROL_CONTROL_INT_H

#include "cluster/cluster.h"
#include "control/control.h"
#include "core/buf.h"
#include "core/loop.h"
#include "net/conn.h"
#include "proto/gen/api_keys.h"
#include "proto/kerr.h"

#include <stdbool.h>
#include <stdint.h>

/* What a fault does to a request it matches. */
typedef enum gr_fault_action {
    GR_FAULT_ERROR,     /* answer with error (NONE: handle as usual) */
    GR_FAULT_DROP,      /* close the connection, no answer */
    GR_FAULT_BLACKHOLE, /* keep the request, never answer */
} gr_fault_action_t;

/* Which requests a fault or delay applies to: every filter set must hold.
 * Strings are owned (NULL: any). */
typedef struct gr_ctl_filter {
    int16_t api; /* -1: any */
    char *client_id;
    char *topic;
    int32_t partition; /* -1: any (only with topic) */
    char *group;
} gr_ctl_filter_t;

typedef struct gr_fault {
    uint64_t id;
    gr_ctl_filter_t f;
    gr_fault_action_t action;
    gr_kerr_t error;
    bool top;            /* the error goes in the top-level field */
    int32_t throttle_ms; /* put in the response's throttle_time_ms */
    int32_t delay_ms;    /* the response leaves no sooner than this after
                          * the request arrived */
    int64_t count;       /* requests left to match; -1: until cleared */
    int64_t hits;
    struct gr_fault *next;
} gr_fault_t;

typedef struct gr_delay {
    uint64_t id;
    gr_ctl_filter_t f;
    int32_t ms;
    int64_t hits;
    struct gr_delay *next;
} gr_delay_t;

/* What happened to a logged request. */
typedef enum gr_ctl_outcome {
    GR_OUT_PENDING,  /* not answered yet */
    GR_OUT_HANDLED,  /* answered by its handler */
    GR_OUT_INJECTED, /* answered with an injected error */
    GR_OUT_DROPPED,  /* its connection closed by a fault */
    GR_OUT_BLACKHOLED,
    GR_OUT_NO_REPLY, /* ended without an answer (acks=0, a close) */
} gr_ctl_outcome_t;

#define GR_CTL_LOG_SIZE      2048
#define GR_CTL_CLIENT_ID_MAX 64

typedef struct gr_ctl_logent {
    uint64_t seq;    /* 1, 2, ...; 0: an empty slot */
    int64_t time_ms; /* wall clock at arrival */
    uint64_t conn_id;
    int16_t api, version;
    int32_t corr;
    int16_t error;   /* the response's first error (valid once answered) */
    uint8_t outcome; /* gr_ctl_outcome_t */
    int32_t throttle_ms, delay_ms;
    int64_t latency_us; /* arrival to reply (-1: not answered) */
    uint64_t fault_id;  /* the fault applied, 0: none */
    char client_id[GR_CTL_CLIENT_ID_MAX];
} gr_ctl_logent_t;

typedef struct gr_ctl_conn gr_ctl_conn_t;
typedef struct gr_ctl_hold gr_ctl_hold_t;

/* What metrics.c counts per API, from the requests the hooks see. */
#define GR_METRICS_VERSIONS 32  /* versions 0..31 counted apart */
#define GR_METRICS_BUCKETS  16  /* latency buckets, the last one +Inf */
#define GR_METRICS_ERRORS   160 /* error codes -1..158, by code + 1 */
typedef struct gr_api_metrics {
    int64_t requests[GR_METRICS_VERSIONS];
    int64_t latency[GR_METRICS_BUCKETS]; /* not cumulative */
    int64_t latency_count;
    int64_t latency_sum_us;
    int64_t *errors; /* GR_METRICS_ERRORS counts; NULL until the first */
} gr_api_metrics_t;

typedef struct gr_metrics {
    gr_api_metrics_t api[GR_API__MAX];
    /* the counters of partitions deleted since the start, so that the
     * all-topics totals never go down */
    gr_partition_stats_t gone;
    int64_t gone_messages;
    int64_t scrapes;
    int64_t scrape_us; /* the last scrape's text's time (on a worker) */
    struct gr_scrape *scrapes_inflight; /* texts being written */
} gr_metrics_t;

struct gr_control {
    gr_broker_t *b;
    char url[128];         /* "": no control listener (metrics only) */
    char metrics_url[128]; /* gregor.metrics.listener, or "" */
    gr_io_t mio;           /* its listening socket (fd -1: none) */
    gr_metrics_t *metrics;
    gr_io_t lio;          /* the listening socket */
    gr_ctl_conn_t *conns; /* HTTP connections */
    int nconns;
    gr_timer_t idle_timer;
    gr_fault_t *faults; /* in the order added */
    gr_delay_t *delays;
    uint64_t next_id;
    int16_t caps[GR_API__MAX][2]; /* min, max; -2: not capped */
    bool capped;
    gr_ctl_logent_t *log; /* GR_CTL_LOG_SIZE entries, a ring */
    uint64_t log_seq;     /* the last seq given */
    gr_ctl_hold_t *holds; /* requests held (blackholed or delayed) */
    int64_t stat_requests, stat_injected;
};

/* Per request, in its arena, while the control module follows it. */
struct gr_ctl_hold {
    gr_control_t *ctl;
    gr_req_t *req;
    uint64_t seq; /* its log entry */
    uint64_t fault_id;
    bool blackholed;
    bool released;   /* the reply hook ran (a delay was taken) */
    bool meta_error; /* Metadata: overwrite topic errors */
    bool linked;     /* in ctl->holds */
    gr_kerr_t error;
    const char *topic; /* Metadata filter (copied into the arena) */
    int32_t partition;
    int32_t throttle_ms, delay_ms;
    gr_timer_t timer;
    gr_ctl_hold_t *prev, *next;
};

/* inject.c */
void gr_ctl_filter_fini(gr_ctl_filter_t *f);
/* Whether req passes f (api, client id, topic/partition, group). */
bool gr_ctl_filter_match(const gr_ctl_filter_t *f, gr_req_t *req);
/* Adds a fault (f's strings move into it); its id. */
uint64_t gr_ctl_fault_add(gr_control_t *c, gr_fault_t *f);
uint64_t gr_ctl_delay_add(gr_control_t *c, gr_delay_t *d);
/* Removes the fault or delay with id (0: all; api >= 0: only those of
 * that API). The number removed. A blackhole removed releases the
 * requests it holds: their connections are closed. */
int gr_ctl_faults_clear(gr_control_t *c, uint64_t id, int16_t api);
int gr_ctl_delays_clear(gr_control_t *c, uint64_t id, int16_t api);
/* Caps the versions served of api (min/max -2: leave; max -1: the API is
 * not served). 0, or -1 when api is not served at all. */
int gr_ctl_cap_set(gr_control_t *c, int16_t api, int16_t min, int16_t max);
void gr_ctl_caps_clear(gr_control_t *c);
/* Closes every Kafka connection; their number. */
int gr_ctl_close_connections(gr_control_t *c);
void gr_ctl_log_clear(gr_control_t *c);
/* JSON writers */
void gr_ctl_faults_json(gr_control_t *c, gr_buf_t *o);
void gr_ctl_delays_json(gr_control_t *c, gr_buf_t *o);
void gr_ctl_caps_json(gr_control_t *c, gr_buf_t *o);
/* Entries with seq > since, at most limit, oldest first. */
void gr_ctl_log_json(gr_control_t *c, gr_buf_t *o, uint64_t since, int limit,
                     int16_t api, const char *client_id);
/* The dispatch and reply hooks. */
int gr_ctl_request(gr_req_t *req);
void gr_ctl_holds_release(gr_control_t *c);

/* An API key by name ("Produce", "produce", "0"); -1 if unknown. */
int16_t gr_ctl_api_parse(const char *s);
/* An error by name ("NOT_LEADER_OR_FOLLOWER") or code ("6"); false if
 * unknown. */
bool gr_ctl_error_parse(const char *s, gr_kerr_t *out);

/* metrics.c */
int gr_metrics_init(gr_control_t *c);
void gr_metrics_fini(gr_control_t *c);
/* A request decoded (the request hook), and its answer on its way out
 * (the reply hook, once per request, when it is encoded; wait_us: how
 * long a delay holds its write still, part of its latency). */
void gr_metrics_request(gr_control_t *c, gr_req_t *req);
void gr_metrics_reply(gr_control_t *c, gr_req_t *req, int64_t wait_us);
/* A scrape: a snapshot of everything, taken now, whose Prometheus text
 * (format 0.0.4) is written on a worker; cb(arg, 200, text) runs once on the
 * loop with it (text is the scrape's, valid during the call), at once
 * when there is no worker, unless the scrape is forgotten first. *sc is
 * the scrape in flight (NULL once cb ran). 0, or -1 when out of memory
 * (cb is not called). */
typedef struct gr_scrape gr_scrape_t;
typedef void (*gr_scrape_cb)(void *arg, int status, gr_buf_t *text);
int gr_metrics_scrape(gr_control_t *c, gr_scrape_cb cb, void *arg,
                      gr_scrape_t **sc);
/* cb will not be called (the connection that asked is gone); the text
 * is still written and then freed. */
void gr_metrics_scrape_forget(gr_scrape_t *sc);

/* shapes.c: where each API's topics, partitions, groups and errors are */
/* Whether req names topic (and partition, -1: any) / group. */
bool gr_shape_has_topic(gr_req_t *req, const char *topic, int32_t partition);
bool gr_shape_has_group(gr_req_t *req, const char *group);
/* Whether an error can be injected into api at all. */
bool gr_shape_can_error(int16_t api);
/* Fills req->resp (initialised) as the API's answer to req failing with
 * err: per partition, topic or group where the API has such errors, in
 * the top-level error field with top or where it has only that (Kafka's
 * AbstractRequest.getErrorResponse). 0, or -1 when this version of the
 * API has no place for an error. */
int gr_shape_error_response(gr_req_t *req, gr_kerr_t err, bool top);
/* Metadata's answer: err on the topics named topic (NULL: all), on the
 * partition only when partition >= 0. */
void gr_shape_metadata_error(gr_req_t *req, gr_kerr_t err, const char *topic,
                             int32_t partition);
/* The response's first error: top-level, else the first element's that
 * is not NONE. */
gr_kerr_t gr_shape_first_error(gr_req_t *req);
/* Calls cb(arg, err) for the response's top-level error, where the API
 * has one, and for every element's error (partitions, topics, groups
 * ...), as Kafka's AbstractResponse.errorCounts counts them (NONE
 * included). An API without a shape counts one NONE. */
void gr_shape_errors_foreach(gr_req_t *req,
                             void (*cb)(void *arg, gr_kerr_t err), void *arg);
/* Sets the response's throttle_time_ms (when larger). */
void gr_shape_set_throttle(gr_req_t *req, int32_t ms);

#endif
