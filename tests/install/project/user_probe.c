/* A user's program: which side its headers were built for, which library it
 * loaded at run time, and the devices that library's side sees. */
#include <stdint.h>
#include <stdio.h>

#include <doca_build_config.h>
#include <doca_dev.h>
#include <doca_dma.h>
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
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	doca_error_t err = doca_devinfo_create_list(&list, &n);

	printf("side=%s runtime=%s\n", side, doca_version_runtime());
	if (err != DOCA_SUCCESS) {
		printf("devinfo: %s\n", doca_error_get_name(err));
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";

		if (doca_devinfo_get_pci_addr_str(list[i], pci) == DOCA_SUCCESS)
			printf("dev=%s dma=%s\n", pci,
			       doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS ? "yes" : "no");
	}
	doca_devinfo_destroy_list(list);
	return 0;
}
