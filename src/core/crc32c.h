/*
 * CRC-32C (Castagnoli), the checksum of record batches (magic 2): ISA-L's
 * crc32_iscsi with Kafka's conventions (initial value and final xor ~0),
 * so gr_crc32c("123456789", 9) == 0xE3069283. Any thread.
 */
#ifndef GR_CORE_CRC32C_H
#define GR_CORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t gr_crc32c(const void *p, size_t n);

#endif
