/*
 * Fuzz target "meta": meta_local's files as recovery reads them
 * (src/meta/local.c has their format). Input:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 snapshot length s (big-endian; cut to what is left)
 *        4    s snapshot bytes (0: no snapshot)
 *      4+s    . journal bytes
 *
 * gr_meta_local_parse() loads both into a tree and frees it: no crash or
 * leak; the valid journal prefix it reports lies inside the journal, and
 * parsing that prefix again accepts all of it (recovery cuts the journal
 * there, so the next start must read it whole).
 */
#include "fuzz.h"

#include "meta/meta.h"

int
gr_fuzz_meta(const uint8_t *data, size_t n)
{
    size_t s, ok = 0, ok2 = 0;
    int rc;

    if (n < 4)
        return 0;
    s = (size_t)data[0] << 24 | (size_t)data[1] << 16 | (size_t)data[2] << 8 |
        data[3];
    if (s > n - 4)
        s = n - 4;
    rc = gr_meta_local_parse(data + 4, s, data + 4 + s, n - 4 - s, &ok);
    GR_FUZZ_CHECK(ok <= n - 4 - s);
    if (rc == 0) {
        GR_FUZZ_CHECK(gr_meta_local_parse(data + 4, s, data + 4 + s, ok,
                                          &ok2) == 0);
        GR_FUZZ_CHECK(ok2 == ok);
    }
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_meta)
