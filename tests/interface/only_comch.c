/* Includes doca_comch.h and nothing else (see only_dma.c). */
#include <doca_comch.h>

int main(void)
{
	size_t len = strlen("comch");
	uint32_t *v = calloc(1, sizeof(*v));

	assert(v != NULL && len == 5);
	free(v);
#ifdef DOCA_ARCH_DPU
	return 10;
#elif defined(DOCA_ARCH_HOST)
	return 20;
#else
	return 1;
#endif
}
