/*
 * Helpers shared by the descriptors that cross the emulated link (exported
 * mmaps, shared sync-event cells): who a process is, whether a PCI string
 * from a peer is plausible, and the descriptors' checksum.
 *
 * A pid alone names a process only until it exits and the number is reused;
 * pid + start time (field 22 of /proc/<pid>/stat) names it for good, which is
 * why every descriptor carries both and every access re-checks them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sd_remote.h"

doca_error_t sd_proc_identity(pid_t pid, uint64_t *start_time, uid_t *uid)
{
	char path[64], buf[1024];
	struct stat st;
	ssize_t n;
	char *p;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_OPERATING_SYSTEM;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return DOCA_ERROR_NOT_FOUND;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: skip to the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ')
		return DOCA_ERROR_OPERATING_SYSTEM;
	p += 2; /* field 3, the state */
	if (*p == 'Z' || *p == 'X')
		return DOCA_ERROR_NOT_FOUND;
	for (field = 3; field < 22 && p != NULL; field++) {
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	if (p == NULL)
		return DOCA_ERROR_OPERATING_SYSTEM;
	*start_time = strtoull(p, NULL, 10);
	if (uid != NULL)
		*uid = st.st_uid;
	return DOCA_SUCCESS;
}

bool sd_pci_plausible(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
		      c == '.'))
			return false;
	}
	/* the rest of the field must be zero: nothing may hide behind the string */
	for (size_t i = n; i < cap; i++)
		if (s[i] != '\0')
			return false;
	return true;
}

uint64_t sd_fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
