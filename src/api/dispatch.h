/*
 * Dispatch: a frame becomes a request. The header is decoded, the API and
 * version are checked against the served table (api_table.c), the body is
 * decoded into the request arena by the generated codec, the response is
 * initialised, and the API's handler runs. Decode failures never reach a
 * handler: as Kafka does, they are logged and the connection is closed.
 */
#ifndef GR_API_DISPATCH_H
#define GR_API_DISPATCH_H

#include "core/conf.h"
#include "net/conn.h"

typedef int (*gr_api_handler_t)(gr_req_t *req);

typedef struct gr_api_entry {
    int16_t key;
    int16_t min_ver;
    int16_t max_ver;
    gr_api_handler_t handler;
} gr_api_entry_t;

/* The served APIs, ascending by key; cnt set to the number of entries. */
const gr_api_entry_t *gr_api_table(int *cnt);
/* The highest version of e served: its table maximum, or with
 * unstable.api.versions.enable (Kafka's internal key, for tests) the
 * schema's unstable latest one (conf may be NULL: the table's). */
int16_t gr_api_max_version(const gr_api_entry_t *e, const gr_conf_t *conf);
/* The versions of e served now: min_ver to gr_api_max_version(), within
 * the emulated Kafka release's ranges (b->emulate, emulate.h) and the
 * control interface's caps (b->api_caps, src/control/). *max < *min:
 * the API is not served (not advertised, refused as an unknown one). */
void gr_api_served(const struct gr_broker *b, const gr_api_entry_t *e,
                   int16_t *min, int16_t *max);
/* The entry for key, or NULL when Gregor does not serve it. */
const gr_api_entry_t *gr_api_find(int16_t key);

/* Handles one frame (without its size prefix); the frame stays valid until
 * the request ends. The request is finished, deferred or its connection
 * closed on return. */
void gr_dispatch(gr_req_t *req, const uint8_t *frame, size_t len);
/* Called with every encoded response (frame dumps, trace logging). */
void gr_dispatch_trace_response(gr_req_t *req, const uint8_t *buf, size_t len,
                                const gr_writer_t *w);
/* The two above, for connections (net/conn.h): what b->dispatch points at. */
extern const gr_conn_dispatch_t gr_api_dispatch;

#endif
