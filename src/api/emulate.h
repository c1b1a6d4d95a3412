/*
 * Emulated Kafka releases: the API version ranges Apache Kafka 2.8, 3.0 ...
 * 3.9 and 4.0 ... 4.3 advertised in ApiVersions, so that a broker started
 * with --emulate 3.6 (gregor.emulate.version) or told by the control
 * interface (POST /v1/emulate) looks to clients like that release: an API
 * the release did not have is neither advertised nor accepted (its
 * requests close the connection, as Kafka's parseRequestHeader does), and
 * a version outside the release's range is refused as Kafka refuses it
 * (ApiVersions: UNSUPPORTED_VERSION in v0 form; any other: the close).
 * The table (emulate.c) holds numbers only; gr_api_served() intersects
 * it with what Gregor serves and with the control interface's caps.
 */
#ifndef GR_API_EMULATE_H
#define GR_API_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gr_api_release gr_api_release_t;

/* The release named by name: "3.6", "3.6.2" (the patch is ignored: the
 * ranges are a minor release's), or NULL when the table has no such
 * release. */
const gr_api_release_t *gr_api_release_find(const char *name);
/* "3.6": the release's name. */
const char *gr_api_release_name(const gr_api_release_t *rel);
/* The releases known, lowest first, as "2.8, 3.0, ..." into buf. */
void gr_api_release_list(char *buf, size_t size);
/* The versions of api key that rel served: true with *min and *max set,
 * or false when the release had no such API (or Gregor's table has no
 * row for it). */
bool gr_api_release_range(const gr_api_release_t *rel, int16_t key,
                          int16_t *min, int16_t *max);

#endif
