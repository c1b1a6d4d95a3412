/*
 * Checksums of the record formats: CRC-32C (Castagnoli) covers magic-2
 * record batches (attributes..end), CRC-32 (IEEE, as java.util.zip.CRC32)
 * covers magic-0/1 legacy messages (magic..end). See
 * ../shared/reference/record-format.md. CRC-32C is computed here: on
 * x86-64 with AVX-512 carry-less multiplication (VPCLMULQDQ) buffers of
 * 1 KiB and more are folded (40-55 GB/s on this machine's EPYC, as ISA-L),
 * else the crc32 instruction of SSE 4.2 runs three streams (20-28 GB/s),
 * else a table takes a byte at a time (0.4 GB/s). CRC-32 comes from zlib.
 * Both are pure functions, safe on any thread.
 *
 * Incremental use: gr_crc32c_update(crc, p, n) takes the finished CRC of
 * the bytes before p (0 for none) and returns the finished CRC of those
 * bytes followed by p[0..n), the convention of zlib's crc32(). So
 *   gr_crc32c_update(gr_crc32c_update(0, a, na), b, nb)
 *       == gr_crc32c(a || b)
 * and gr_crc32c(p, n) == gr_crc32c_update(0, p, n). gr_crc32_update()
 * works the same way for CRC-32.
 */
#ifndef GR_CORE_CRC32C_H
#define GR_CORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of p[0..n); "123456789" gives 0xE3069283. */
uint32_t gr_crc32c(const void *p, size_t n);
/* CRC-32C of (the bytes crc covers) followed by p[0..n); crc 0 to start. */
uint32_t gr_crc32c_update(uint32_t crc, const void *p, size_t n);
/* The same without the crc32 instruction (tests compare the two). */
uint32_t gr_crc32c_portable_update(uint32_t crc, const void *p, size_t n);

/* CRC-32 (IEEE 802.3, zlib, java.util.zip.CRC32) of p[0..n); "123456789"
 * gives 0xCBF43926. */
uint32_t gr_crc32(const void *p, size_t n);
/* Incremental CRC-32, same convention as gr_crc32c_update(). */
uint32_t gr_crc32_update(uint32_t crc, const void *p, size_t n);

#endif
