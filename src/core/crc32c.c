/* CRC-32C: see crc32c.h. */
#include "core/crc32c.h"

#include <isa-l/crc.h>
#include <limits.h>

uint32_t
gr_crc32c(const void *p, size_t n)
{
    unsigned char *b = (unsigned char *)p; /* ISA-L takes no const */
    uint32_t crc = 0xFFFFFFFFu;

    /* crc32_iscsi counts in int: feed larger buffers in chunks */
    while (n > (size_t)INT_MAX) {
        crc = crc32_iscsi(b, INT_MAX, crc);
        b += INT_MAX;
        n -= (size_t)INT_MAX;
    }
    return ~crc32_iscsi(b, (int)n, crc);
}
