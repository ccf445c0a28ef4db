#ifndef CHECKSUM_H
#define CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adler-32 of the n bytes at p. */
uint32_t adler32(const unsigned char *p, size_t n);

#endif
