/*
 * libgregor: a Gregor broker inside a test process.
 *
 *     gregor_t *g = gregor_start(NULL);           // temp data, free ports
 *     const char *bootstrap = gregor_bootstrap_servers(g);
 *     gregor_push_errors(g, "Produce", 2, 6, 7);  // NOT_LEADER, TIMEOUT
 *     ... produce and consume with any client against bootstrap ...
 *     gregor_stop(g);
 *
 * A broker started here runs on a thread of its own (its event loop;
 * the broker's workers are threads too) and serves real Kafka clients
 * on ephemeral ports of 127.0.0.1, with its data in a temporary
 * directory removed when it stops unless told otherwise. Its control
 * interface (the README's "Gregor in your tests": faults, delays,
 * version caps, the request log, /metrics) is reached by the calls
 * below, which post to the broker's loop and wait for its answer, and
 * over HTTP at gregor_control_url() for code in other languages.
 *
 * Threads: every function may be called from any thread, concurrently,
 * while the broker runs; gregor_stop() must not race the other calls on
 * the same gregor_t. No signal handlers are installed and the broker's
 * threads block every signal (SIGPIPE included), so the test's handlers
 * stay its own. Several brokers may run in one process, each its own
 * gregor_t; log lines go to stderr (gregor_log_level()).
 *
 * Errors: a function that fails returns NULL or -1 and leaves a message
 * naming what was wrong for gregor_last_error() of the calling thread.
 * Strings returned live as long as their gregor_t unless said otherwise.
 *
 * Stability: this header is the whole public API; the shared library
 * exports these symbols and nothing else. GREGOR_API_VERSION grows when
 * a function is added; none changes meaning within a major version.
 */
#ifndef GREGOR_GREGOR_H
#define GREGOR_GREGOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GREGOR_API __attribute__((visibility("default")))
#else
#define GREGOR_API
#endif

#define GREGOR_API_VERSION 2

typedef struct gregor gregor_t;
typedef struct gregor_conf gregor_conf_t;

/* "0.1.0": the version of the library (and broker). */
GREGOR_API const char *gregor_version(void);
/* The message of the last failed call on this thread ("" if none). */
GREGOR_API const char *gregor_last_error(void);
/* Process-wide: "error", "warn", "info" (the default), "debug", "trace".
 * 0, or -1 for an unknown level. GREGOR_LOG_LEVEL in the environment is
 * read at the first gregor_start() unless this was called before. */
GREGOR_API int gregor_log_level(const char *level);

/* --- configuration */

/* A configuration: Kafka's server.properties keys, as --override sets
 * them. Unless set, a broker started from it gets
 *   listeners=PLAINTEXT://127.0.0.1:0   (a free port)
 *   gregor.temp.data=true               (gregor_conf_temp_data(c, 1))
 *   gregor.control.listener=http://127.0.0.1:0
 * and with temp data the test defaults of --temp-data (README). */
GREGOR_API gregor_conf_t *gregor_conf_new(void);
GREGOR_API void gregor_conf_destroy(gregor_conf_t *conf);
/* key=value; later sets of a key win. 0, or -1 (NULL or empty key). The
 * value is checked when the broker starts. */
GREGOR_API int gregor_conf_set(gregor_conf_t *conf, const char *key,
                               const char *value);
/* A server.properties file read first (the sets above win). */
GREGOR_API int gregor_conf_file(gregor_conf_t *conf, const char *path);
/* on (the default): data in a fresh temporary directory removed at stop;
 * off: log.dirs (or log.dir) as configured, kept. */
GREGOR_API int gregor_conf_temp_data(gregor_conf_t *conf, int on);
/* How many brokers to start: 1 (the default). More is refused by
 * gregor_start(): Gregor has no cluster mode yet. */
GREGOR_API int gregor_conf_brokers(gregor_conf_t *conf, int n);

/* --- life cycle */

/* Starts a broker (conf: NULL for the defaults; not kept, may be
 * destroyed at once) and returns once it serves: its listeners are
 * bound and every gregor_* call works. NULL on an error (a bad setting,
 * a port taken, more than one broker), with the reason. */
GREGOR_API gregor_t *gregor_start(const gregor_conf_t *conf);
/* Stops the broker (as SIGTERM: a clean shutdown), waits for its thread
 * and frees g. 0, or -1 when the broker's run ended in an error. NULL:
 * nothing. */
GREGOR_API int gregor_stop(gregor_t *g);
/* "127.0.0.1:40913": the first listener's host and port, what a
 * client's bootstrap.servers takes. */
GREGOR_API const char *gregor_bootstrap_servers(const gregor_t *g);
/* "http://127.0.0.1:38251", or NULL when the control listener is off
 * (gregor.control.listener=""). */
GREGOR_API const char *gregor_control_url(const gregor_t *g);
/* The data directory (absolute). */
GREGOR_API const char *gregor_data_dir(const gregor_t *g);

/* --- the control operations (README "Gregor in your tests")
 *
 * api: Kafka's name of an API ("Produce", "ListOffsets") or its key
 * ("0"); error: Kafka's name of an error ("NOT_LEADER_OR_FOLLOWER") or
 * its code ("6"). opts: NULL or "key=value" pairs separated by spaces,
 * the members of the HTTP request's JSON (integers, true and false as
 * such): topic= partition= group= client_id= count= (-1: until
 * cleared) throttle_ms= delay_ms= top=true. Ids are those the control
 * interface gives (> 0). */

/* A fault: the next count requests of api matching opts (default 1) get
 * error. Its id, or -1. */
GREGOR_API int64_t gregor_fault(gregor_t *g, const char *api, const char *error,
                                const char *opts);
/* A stack of cnt errors (Kafka codes; 0, NONE, lets a request through),
 * one request of api each, in order: librdkafka's
 * rd_kafka_mock_push_request_errors. 0 or -1. */
GREGOR_API int gregor_push_errors(gregor_t *g, const char *api, int cnt, ...);
GREGOR_API int gregor_push_errors_array(gregor_t *g, const char *api, int cnt,
                                        const int16_t *errors,
                                        const char *opts);
/* Until cleared, answers of api (NULL: every API) matching opts leave ms
 * after their request arrived (a round-trip time). Its id, or -1. */
GREGOR_API int64_t gregor_delay(gregor_t *g, const char *api, int ms,
                                const char *opts);
/* The connection of the next request of api matching opts is closed,
 * unanswered. Its id, or -1. */
GREGOR_API int64_t gregor_drop(gregor_t *g, const char *api, const char *opts);
/* Requests matching opts ("client_id=svc-a", "api=Fetch") are read and
 * never answered, until cleared (which closes their connections). Its
 * id, or -1. */
GREGOR_API int64_t gregor_blackhole(gregor_t *g, const char *opts);
/* Removes the fault or delay id; id 0: every fault and delay. The number
 * removed, or -1. */
GREGOR_API int gregor_clear(gregor_t *g, int64_t id);
/* Closes every client connection now. How many, or -1. */
GREGOR_API int gregor_close_connections(gregor_t *g);
/* Serves only versions min..max of api (an older Kafka; -2: leave that
 * bound as it is; max -1: api is not served). 0 or -1. */
GREGOR_API int gregor_cap_versions(gregor_t *g, const char *api, int min,
                                   int max);
/* Looks like Apache Kafka release version ("2.8", "3.6", "4.0"; NULL:
 * Gregor's own ranges): ApiVersions advertises and requests may use only
 * that release's APIs and versions (--emulate). Connected clients keep
 * what they were told until they reconnect. 0, or -1 for a release the
 * table does not have. */
GREGOR_API int gregor_emulate(gregor_t *g, const char *version);
/* Clears faults, delays, caps and the request log, and sets the emulated
 * release back to the configuration's. 0 or -1. */
GREGOR_API int gregor_reset(gregor_t *g);
/* Moves the broker's virtual clock ms ahead (ms >= 0): the timers that
 * fall due (session, rebalance and transaction timeouts, retention
 * checks ...) have run when this returns. The broker must have been
 * started with gregor.virtual.clock=true (gregor_conf_set); the README's
 * "Virtual time" says what follows the clock and what stays real.
 * Returns the broker's wall-clock time afterwards (ms since the epoch),
 * or -1 (a real clock, or ms out of range). ms 0 reads the clock. */
GREGOR_API int64_t gregor_clock_advance(gregor_t *g, int64_t ms);
/* The request log as JSON ({"requests":[...],"last":N}, README);
 * query: NULL or "since=S&limit=N&api=A&client_id=C". *json is the
 * caller's (gregor_free()). 0 or -1. */
GREGOR_API int gregor_requests(gregor_t *g, const char *query, char **json);
/* Requests of api (NULL: all) in the log whose answer's first error is
 * error (NULL: any outcome; "NONE": answered without one). The count, or
 * -1. */
GREGOR_API int64_t gregor_request_count(gregor_t *g, const char *api,
                                        const char *error);
/* The Prometheus text of GET /metrics. *text is the caller's
 * (gregor_free()). 0 or -1. */
GREGOR_API int gregor_metrics(gregor_t *g, char **text);
/* Any route of the control interface: method "GET", "POST" or
 * "DELETE", path "/v1/faults?api=Produce", body JSON or NULL. Returns
 * the HTTP status (-1: no answer, the broker is gone); the answer's
 * body into *answer when not NULL (gregor_free()). */
GREGOR_API int gregor_control(gregor_t *g, const char *method, const char *path,
                              const char *body, char **answer);
/* Frees what the calls above returned. */
GREGOR_API void gregor_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
