/*
 * Internal error codes (gr_err_t): 0 or a negative GR_ERR_*. Kafka error
 * codes (gr_kerr_t) are a different type; see protocol/errors.def and
 * src/proto/kerr.h. Each module converts its own failures once, at its API.
 */
#ifndef GR_CORE_ERR_H
#define GR_CORE_ERR_H

typedef int gr_err_t;

#define GR_OK              0
#define GR_ERR_NOMEM       -1  /* allocation failed */
#define GR_ERR_TRUNCATED   -2  /* input ended early */
#define GR_ERR_INVALID     -3  /* input malformed */
#define GR_ERR_UNSUPPORTED -4  /* version or feature not supported */
#define GR_ERR_IO          -5  /* a system call failed; errno logged */
#define GR_ERR_TOO_LARGE   -6  /* over a configured limit */
#define GR_ERR_NOT_FOUND   -7
#define GR_ERR_EXISTS      -8
#define GR_ERR_CORRUPT     -9  /* checksum or structure failed on disk */
#define GR_ERR_NOSPACE     -10 /* disk full */

const char *gr_err_str(gr_err_t err);

#endif
