/*
 * Fuzz targets that read a file get it as a memfd: no disk, no temp files.
 */
#ifndef SD_FUZZ_MEMFD_H_
#define SD_FUZZ_MEMFD_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Creates the memfd and writes its /proc/self/fd/N name to path; aborts on failure. */
static inline int sd_fuzz_memfd_open(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Makes the memfd's content exactly data[0..size); aborts on failure. */
static inline void sd_fuzz_memfd_fill(int fd, const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (ftruncate(fd, 0) != 0)
		abort();
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
}

#endif /* SD_FUZZ_MEMFD_H_ */
