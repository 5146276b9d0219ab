/*
 * dma_remote_util.h - what the remote DMA test, its exporter program and
 * the DMA benchmark agree on: the pattern an export is filled with, the
 * checksum printed by the exporter, and the descriptor's hex form.
 */
#ifndef DMA_REMOTE_UTIL_H_
#define DMA_REMOTE_UTIL_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/export_util.h"

/* Byte at offset off of a buffer patterned with seed: varies within and
 * across pages, so a copy from the wrong offset shows. */
static inline uint8_t drt_pattern_byte(uint64_t off, uint32_t seed)
{
	uint64_t x = (off >> 3) * 0x9e3779b97f4a7c15ull + seed;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint8_t)(x >> ((off & 7) * 8));
}

static inline void drt_fill(uint8_t *p, size_t len, uint64_t off, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = drt_pattern_byte(off + i, seed);
}

/* FNV-1a 64, over 8-byte words where possible (fast enough for 64 MiB). */
static inline uint64_t drt_sum(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		__builtin_memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The descriptor's hex form is the export tests' (export_util.h). */
static inline size_t drt_from_hex(const char *s, uint8_t *out, size_t max)
{
	return exu_from_hex(s, out, max);
}

#endif /* DMA_REMOTE_UTIL_H_ */
