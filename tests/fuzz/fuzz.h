/*
 * Fuzz targets: one entry point per target family, each taking any bytes.
 * A target returns normally on every input; an input it cannot handle is
 * a bug, reported by a sanitizer or by GR_FUZZ_CHECK() (abort with the
 * failed condition). Built two ways:
 *
 *   - with libFuzzer (tests/fuzz/run.sh, `make fuzz`): clang,
 *     -fsanitize=fuzzer,address,undefined; GR_LIBFUZZER defines
 *     LLVMFuzzerTestOneInput in the target's file;
 *   - into replay (tests/fuzz/replay.c, every `make check`): gcc, runs
 *     tests/fuzz/corpus/<target>/ through the same entry points.
 *
 * Targets: request (frames, header, every generated decoder and encoder),
 * records (batch validation, legacy conversion, down-conversion, record
 * iteration and rebuilding), compress (the four decompressors and a round
 * trip through every compressor), segment (segment and index files opened,
 * recovered and read by the partition log), broker (bytes on a connection
 * to a running broker: framing, dispatch and every handler), otlp (the
 * OTLP metrics a PushTelemetry carries, decoded to JSON lines), fsess
 * (the fetch session cache under a script of Fetch v7+ operations),
 * http (the control listener's HTTP requests and JSON bodies), oauth
 * (SASL/OAUTHBEARER first messages, unsecured JWTs, JWKS and signed JWS),
 * sasl (PLAIN and SCRAM client messages, JAAS text, a SCRAM exchange),
 * meta (meta_local's snapshot and journal files, as recovery reads them),
 * epochs (a partition's leader-epoch-checkpoint, parsed and loaded),
 * replica (a leader's Fetch and OffsetForLeaderEpoch answers to the
 * replica fetcher, decoded, and the fetched records' follower check),
 * acl_zk (an ACL resource znode's JSON, Kafka's AclAuthorizer layout).
 */
#ifndef GR_TESTS_FUZZ_H
#define GR_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GR_FUZZ_CHECK(cond)                                             \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, \
                    __LINE__, #cond);                                   \
            abort();                                                    \
        }                                                               \
    } while (0)

int gr_fuzz_request(const uint8_t *data, size_t n);
int gr_fuzz_records(const uint8_t *data, size_t n);
int gr_fuzz_compress(const uint8_t *data, size_t n);
int gr_fuzz_segment(const uint8_t *data, size_t n);
int gr_fuzz_broker(const uint8_t *data, size_t n);
int gr_fuzz_otlp(const uint8_t *data, size_t n);
int gr_fuzz_fsess(const uint8_t *data, size_t n);
int gr_fuzz_http(const uint8_t *data, size_t n);
int gr_fuzz_oauth(const uint8_t *data, size_t n);
int gr_fuzz_sasl(const uint8_t *data, size_t n);
int gr_fuzz_meta(const uint8_t *data, size_t n);
int gr_fuzz_epochs(const uint8_t *data, size_t n);
int gr_fuzz_replica(const uint8_t *data, size_t n);
int gr_fuzz_acl_zk(const uint8_t *data, size_t n);

/* One-time set-up shared by the targets (quiet logs). */
void gr_fuzz_init(void);

#ifdef GR_LIBFUZZER
#define GR_FUZZ_MAIN(fn)                                       \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n); \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)  \
    {                                                          \
        gr_fuzz_init();                                        \
        return fn(data, n);                                    \
    }
#else
#define GR_FUZZ_MAIN(fn)
#endif

#endif
