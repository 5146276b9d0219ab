/* Built outside the tree against an installed flavor; prints what it sees. */
#include <stdio.h>

#include <doca_build_config.h>
#include <doca_error.h>
#include <doca_version.h>

int main(void)
{
#if defined(DOCA_ARCH_DPU)
	const char *side = "dpu";
#elif defined(DOCA_ARCH_HOST)
	const char *side = "host";
#else
	const char *side = "none";
#endif
	printf("side=%s compiled=%s runtime=%s\n", side, doca_version(), doca_version_runtime());
	printf("%s: %s\n", doca_error_get_name(DOCA_ERROR_BAD_STATE), doca_error_get_descr(DOCA_ERROR_BAD_STATE));
	return 0;
}
