/* Includes doca_dma.h and nothing else: what DOCA's include chain brings
 * (string.h, stdint.h, stdlib.h, assert.h, inttypes.h, doca_build_config.h)
 * must be there. The exit status tells the side the flavor's headers say
 * this program is built for: 10 for the Arm side, 20 for the host. */
#include <doca_dma.h>

int main(void)
{
	uint64_t n = 42;
	void *p = malloc(8);

	assert(p != NULL);
	memset(p, 0, 8);
	free(p);
	if (strcmp("%" PRIu64, "%lu") != 0 && strcmp("%" PRIu64, "%llu") != 0)
		return 1;
	if (n != UINT64_C(42))
		return 1;
#ifdef DOCA_ARCH_DPU
	return 10;
#elif defined(DOCA_ARCH_HOST)
	return 20;
#else
	return 1;
#endif
}
