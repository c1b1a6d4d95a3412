/* Checksums: see crc32c.h. */
#include "core/crc32c.h"

#include <isa-l/crc.h>
#include <limits.h>
#include <zlib.h>

/* ISA-L's crc32_iscsi() works on the raw register: it starts from init_crc
 * and returns the register without the final inversion. A finished CRC-32C
 * is the inverted register, so resuming from one means inverting it back.
 * Its length is an int: longer inputs go in pieces. */
uint32_t
gr_crc32c_update(uint32_t crc, const void *p, size_t n)
{
    unsigned char *q = (unsigned char *)p; /* ISA-L does not write it */
    uint32_t reg = ~crc;

    while (n > 0) {
        int len = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        reg = crc32_iscsi(q, len, reg);
        q += len;
        n -= (size_t)len;
    }
    return ~reg;
}

uint32_t
gr_crc32c(const void *p, size_t n)
{
    return gr_crc32c_update(0, p, n);
}

/* zlib's crc32_z() already takes and returns finished CRCs. */
uint32_t
gr_crc32_update(uint32_t crc, const void *p, size_t n)
{
    if (n == 0)
        return crc;
    return (uint32_t)crc32_z(crc, p, n);
}

uint32_t
gr_crc32(const void *p, size_t n)
{
    return gr_crc32_update(0, p, n);
}
