/* Internal error names: see err.h. */
#include "core/err.h"

const char *
gr_err_str(gr_err_t err)
{
    switch (err) {
    case GR_OK:
        return "ok";
    case GR_ERR_NOMEM:
        return "out of memory";
    case GR_ERR_TRUNCATED:
        return "truncated input";
    case GR_ERR_INVALID:
        return "malformed input";
    case GR_ERR_UNSUPPORTED:
        return "unsupported version";
    case GR_ERR_IO:
        return "I/O error";
    case GR_ERR_TOO_LARGE:
        return "too large";
    case GR_ERR_NOT_FOUND:
        return "not found";
    case GR_ERR_EXISTS:
        return "already exists";
    case GR_ERR_CORRUPT:
        return "corrupt data";
    case GR_ERR_NOSPACE:
        return "no space left";
    }
    return "unknown error";
}
