/*
 * libFuzzer target: the JSON topology loader (SOFTDOCA_TOPOLOGY files).
 *
 * The loader keeps one topology per process, so the target includes
 * topology.c and topology_parse.c and drives the file reader and the parser
 * per input, the way topo_load_locked() does. The first byte picks the side (host or dpu: each
 * keeps different functions) and whether the text goes through the file
 * reader (a memfd passed as /proc/self/fd/N, NUL bytes and all) or straight
 * to the parser. Every input must end in success or a clean error with a
 * message, and a successful topology must be self-consistent.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "topology.c"
#include "topology_parse.c"
#include "fuzz_memfd.h"

static int mfd = -1;
static char mpath[64];

static void check_pci(const char *pci)
{
	char canon[SD_PCI_ADDR_LEN];

	if (memchr(pci, '\0', SD_PCI_ADDR_LEN) == NULL || sd_pci_canonical(pci, canon) != DOCA_SUCCESS ||
	    strcmp(canon, pci) != 0)
		abort();
}

static void check_topo(const struct sd_topo *t, enum sd_side side)
{
	if (t == NULL || t->ncards == 0 || (t->nfns > 0 && t->fns == NULL))
		abort();
	for (uint32_t i = 0; i < t->nfns; i++) {
		const struct sd_topo_fn *fn = &t->fns[i];

		check_pci(fn->pci);
		if (fn->card >= t->ncards || strnlen(fn->ibdev, SD_IBDEV_MAX) == SD_IBDEV_MAX ||
		    strnlen(fn->iface, SD_IFACE_MAX) == SD_IFACE_MAX || fn->ibdev[0] == '\0' || fn->iface[0] == '\0')
			abort();
		if (fn->func_type != DOCA_PCI_FUNC_TYPE_PF && fn->func_type != DOCA_PCI_FUNC_TYPE_VF &&
		    fn->func_type != DOCA_PCI_FUNC_TYPE_SF)
			abort();
		/* only the dpu side has representors */
		if (fn->nreps > 0 && (side != SD_SIDE_DPU || fn->reps == NULL))
			abort();
		for (uint32_t r = 0; r < fn->nreps; r++) {
			check_pci(fn->reps[r].pci);
			if (fn->reps[r].card != fn->card)
				abort();
		}
		for (uint32_t j = 0; j < i; j++)
			if (strcmp(t->fns[j].pci, fn->pci) == 0)
				abort(); /* duplicates are refused */
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mfd = sd_fuzz_memfd_open("fuzz_topology", mpath, sizeof(mpath));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_topo *topo = NULL;
	enum sd_side side;
	char msg[512] = "";
	char *text = NULL;
	doca_error_t ret;
	uint8_t mode;

	if (size == 0)
		return 0;
	mode = data[0];
	data++;
	size--;

	side = (mode & 1) ? SD_SIDE_DPU : SD_SIDE_HOST;
	if (mode & 2) {
		sd_fuzz_memfd_fill(mfd, data, size);
		ret = read_file(mpath, &text, msg, sizeof(msg));
		if (ret == DOCA_SUCCESS) {
			if (text == NULL || strlen(text) != size)
				abort();
			ret = sd_topo_parse(text, "fuzz.json", side, &topo, msg, sizeof(msg));
		} else if (text != NULL || strncmp(msg, "topology ", 9) != 0) {
			abort(); /* the file's refusal says which file and why */
		} else {
			free(text);
			return 0;
		}
	} else {
		text = malloc(size + 1);
		if (text == NULL)
			abort();
		memcpy(text, data, size);
		text[size] = '\0';
		ret = sd_topo_parse(text, "fuzz.json", side, &topo, msg, sizeof(msg));
	}
	free(text);

	switch (ret) {
	case DOCA_SUCCESS:
		check_topo(topo, side);
		sd_topo_free(topo);
		break;
	case DOCA_ERROR_INVALID_VALUE:
		/* every refusal says where and why */
		if (topo != NULL || msg[0] == '\0' || strncmp(msg, "topology fuzz.json: ", 20) != 0)
			abort();
		break;
	default:
		abort();
	}
	return 0;
}
