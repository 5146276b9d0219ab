/*
 * doca_caps - print the DOCA devices this process sees and their capabilities.
 *
 *   doca_caps                      capabilities of every device
 *   doca_caps --pci-addr 03:00.0   ... of one device
 *   doca_caps --list-devs          devices and their attributes
 *   doca_caps --list-rep-devs      representors of every device (Arm side)
 *   doca_caps --version            DOCA and softdoca versions and the flavor
 *   doca_caps --list-libs          the DOCA libraries and whether softdoca provides them
 *   doca_caps --limit-to-lib dma   capabilities of one library only
 *   doca_caps --topology-json      what this side sees, as one JSON object
 *   doca_caps --lspci              this side's functions the way lspci prints them
 *
 * Honours SOFTDOCA_TOPOLOGY like every softdoca program. The --lspci view is
 * what softdoca-shell puts behind its `lspci`: a host function, an Arm-side PF
 * or a VF is a PCI function there, an SF is not (it is an auxiliary device).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_version.h>

#include "doca_caps_view.h"
#include "sd_dev.h"

#define KEY_FMT "\t%-40s"

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [options]\n"
		"Print the DOCA devices available to this process and their capabilities.\n"
		"\n"
		"Options:\n"
		"  -p, --pci-addr <addr>  only the device at this PCI address (e.g. 03:00.0)\n"
		"  -l, --list-devs        list devices and their attributes\n"
		"  -r, --list-rep-devs    list the representors of every device (BlueField Arm side)\n"
		"  -v, --version          print the DOCA and softdoca versions\n"
		"      --list-libs        list the DOCA libraries and their availability\n"
		"  -b, --limit-to-lib <lib>  capabilities of one library only\n"
		"                         (general, dma, comch, comch_producer, comch_consumer, mmap)\n"
		"      --topology-json    print the devices and representors this side sees as JSON\n"
		"      --lspci            print this side's PCI functions in lspci's format\n"
		"  -h, --help             print this help\n"
		"\n"
		"SOFTDOCA_TOPOLOGY=<file.json> replaces the emulated machine.\n",
		prog);
}

static const char *yesno(bool v)
{
	return v ? "supported" : "unsupported";
}

static void print_attrs(struct doca_devinfo *di)
{
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE], iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE], v4[DOCA_DEVINFO_IPV4_ADDR_SIZE], v6[DOCA_DEVINFO_IPV6_ADDR_SIZE];
	enum doca_pci_func_type ft;

	if (doca_devinfo_get_ibdev_name(di, ibdev, sizeof(ibdev)) == DOCA_SUCCESS)
		printf(KEY_FMT " %s\n", "ibdev_name", ibdev);
	if (doca_devinfo_get_iface_name(di, iface, sizeof(iface)) == DOCA_SUCCESS)
		printf(KEY_FMT " %s\n", "iface_name", iface);
	if (doca_devinfo_get_pci_func_type(di, &ft) == DOCA_SUCCESS)
		printf(KEY_FMT " %s\n", "pci_func_type", caps_func_type_name(ft));
	if (doca_devinfo_get_mac_addr(di, mac, sizeof(mac)) == DOCA_SUCCESS)
		printf(KEY_FMT " %02x:%02x:%02x:%02x:%02x:%02x\n", "mac_addr", mac[0], mac[1], mac[2], mac[3], mac[4],
		       mac[5]);
	if (doca_devinfo_get_ipv4_addr(di, v4, sizeof(v4)) != DOCA_SUCCESS)
		memset(v4, 0, sizeof(v4)); /* no address assigned */
	printf(KEY_FMT " %u.%u.%u.%u\n", "ipv4_addr", v4[0], v4[1], v4[2], v4[3]);
	if (doca_devinfo_get_ipv6_addr(di, v6, sizeof(v6)) == DOCA_SUCCESS) {
		printf(KEY_FMT " ", "ipv6_addr");
		for (int i = 0; i < 16; i += 2)
			printf("%02x%02x%s", v6[i], v6[i + 1], i < 14 ? ":" : "\n");
	}
}

/* A section is printed when no library filter was given or it names it; "comch"
 * covers the fast-path sections as DOCA's libdoca_comch holds them too. */
static bool want(const char *lib, const char *section)
{
	if (lib == NULL)
		return true;
	if (strcmp(lib, section) == 0)
		return true;
	return strcmp(lib, "comch") == 0 && strncmp(section, "comch_", 6) == 0;
}

static void print_caps(struct doca_devinfo *di, const char *lib)
{
	const struct sd_caps *c = sd_devinfo_caps(di);
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	uint8_t all = 0, net = 0, emu = 0;

	if (want(lib, "general")) {
		printf("\tgeneral:\n");
		if (doca_devinfo_get_ibdev_name(di, ibdev, sizeof(ibdev)) == DOCA_SUCCESS)
			printf("\t" KEY_FMT " %s\n", "ibdev_name", ibdev);
		doca_devinfo_rep_cap_is_filter_all_supported(di, &all);
		doca_devinfo_rep_cap_is_filter_net_supported(di, &net);
		doca_devinfo_rep_cap_is_filter_emulated_supported(di, &emu);
		printf("\t" KEY_FMT " %s\n", "rep_filter_all", yesno(all));
		printf("\t" KEY_FMT " %s\n", "rep_filter_net", yesno(net));
		printf("\t" KEY_FMT " %s\n", "rep_filter_emulated", yesno(emu));
	}
	if (want(lib, "dma")) {
		printf("\tdma:\n");
		printf("\t" KEY_FMT " %s\n", "memcpy", yesno(c->dma_memcpy_supported));
		printf("\t" KEY_FMT " %u\n", "max_buf_list_len", c->dma_max_buf_list_len);
		printf("\t" KEY_FMT " %llu\n", "max_buf_size", (unsigned long long)c->dma_max_buf_size);
		printf("\t" KEY_FMT " %u\n", "max_num_tasks", c->dma_max_tasks);
	}
	if (want(lib, "comch")) {
		printf("\tcomch:\n");
		printf("\t" KEY_FMT " %s\n", "server", yesno(c->comch_server_supported));
		printf("\t" KEY_FMT " %s\n", "client", yesno(c->comch_client_supported));
		printf("\t" KEY_FMT " %u\n", "max_msg_size", c->comch_max_msg_size);
		printf("\t" KEY_FMT " %u\n", "max_name_len", c->comch_max_name_len);
		printf("\t" KEY_FMT " %u\n", "max_recv_queue_size", c->comch_max_recv_queue_size);
		printf("\t" KEY_FMT " %u\n", "max_clients", c->comch_max_clients);
	}
	if (want(lib, "comch_producer")) {
		printf("\tcomch_producer:\n");
		printf("\t" KEY_FMT " %u\n", "max_buf_size", c->producer_max_buf_size);
		printf("\t" KEY_FMT " %u\n", "max_num_tasks", c->producer_max_tasks);
	}
	if (want(lib, "comch_consumer")) {
		printf("\tcomch_consumer:\n");
		printf("\t" KEY_FMT " %u\n", "max_buf_size", c->consumer_max_buf_size);
		printf("\t" KEY_FMT " %u\n", "max_num_tasks", c->consumer_max_tasks);
		printf("\t" KEY_FMT " %u\n", "max_consumers_per_connection", c->max_consumers_per_connection);
	}
	if (want(lib, "mmap")) {
		printf("\tmmap:\n");
		printf("\t" KEY_FMT " %llu\n", "max_memrange_size", (unsigned long long)c->mmap_max_size);
		printf("\t" KEY_FMT " %s\n", "export_pci", yesno(c->mmap_export_pci_supported));
		printf("\t" KEY_FMT " %s\n", "create_from_export_pci", yesno(c->mmap_create_from_export_pci_supported));
		printf("\t" KEY_FMT " %s\n", "cache_invalidate", yesno(c->mmap_cache_invalidate_supported));
	}
}

static int print_reps(struct doca_devinfo *di)
{
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	uint32_t n;
	uint8_t can = 0;
	doca_error_t ret;

	ret = doca_dev_open(di, &dev);
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: failed to open device: %s\n", doca_error_get_descr(ret));
		return 1;
	}
	/* ask the capability first: listing on a host device would also log an SDK error */
	ret = doca_devinfo_rep_cap_is_filter_all_supported(doca_dev_as_devinfo(dev), &can);
	if (ret == DOCA_SUCCESS && !can)
		ret = DOCA_ERROR_NOT_SUPPORTED;
	if (ret == DOCA_SUCCESS)
		ret = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n);
	if (ret == DOCA_ERROR_NOT_SUPPORTED) {
		printf("\tno representors (representors exist only on the BlueField Arm side)\n");
		doca_dev_close(dev);
		return 0;
	}
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: failed to list representors: %s\n", doca_error_get_descr(ret));
		doca_dev_close(dev);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE], vuid[DOCA_DEVINFO_REP_VUID_SIZE];
		enum doca_pci_func_type ft;

		if (doca_devinfo_rep_get_pci_addr_str(reps[i], pci) != DOCA_SUCCESS)
			continue;
		printf("\tRepresentor PCI: %s\n", pci);
		if (doca_devinfo_rep_get_pci_func_type(reps[i], &ft) == DOCA_SUCCESS)
			printf("\t" KEY_FMT " %s\n", "pci_func_type", caps_func_type_name(ft));
		if (doca_devinfo_rep_get_vuid(reps[i], vuid, sizeof(vuid)) == DOCA_SUCCESS)
			printf("\t" KEY_FMT " %s\n", "vuid", vuid);
	}
	if (n == 0)
		printf("\tno representors\n");
	doca_devinfo_rep_destroy_list(reps);
	doca_dev_close(dev);
	return 0;
}

/*
 * The libraries DOCA's doca_caps lists. softdoca provides the first five; the
 * rest drive hardware it does not emulate and are reported as not provided,
 * so a script can tell the two apart.
 */
static int print_libs(void)
{
	static const char *const provided[] = {"doca_common", "doca_dma", "doca_comch", "doca_argp", "doca_log"};
	static const char *const absent[] = {"doca_flow",	"doca_rdma", "doca_dpa",	 "doca_gpunetio",
					     "doca_compress",	"doca_aes_gcm", "doca_sha",	 "doca_erasure_coding",
					     "doca_eth",	"doca_telemetry", "doca_devemu", "doca_urom",
					     "doca_pcc",	"doca_apsh",	"doca_dpi",	 "doca_rmax"};

	printf("Libraries:\n");
	for (size_t i = 0; i < sizeof(provided) / sizeof(provided[0]); i++)
		printf(KEY_FMT " %s\n", provided[i], "available");
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		printf(KEY_FMT " %s\n", absent[i], "unavailable (not emulated by softdoca)");
	return 0;
}

static bool lib_known(const char *lib)
{
	static const char *const names[] = {"general", "dma", "comch", "comch_producer", "comch_consumer", "mmap"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(lib, names[i]) == 0)
			return true;
	return false;
}

enum mode { MODE_CAPS, MODE_DEVS, MODE_REPS };
enum { OPT_LIST_LIBS = 256, OPT_TOPO_JSON, OPT_LSPCI };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"pci-addr", required_argument, NULL, 'p'},
		{"list-devs", no_argument, NULL, 'l'},
		{"list-rep-devs", no_argument, NULL, 'r'},
		{"version", no_argument, NULL, 'v'},
		{"list-libs", no_argument, NULL, OPT_LIST_LIBS},
		{"limit-to-lib", required_argument, NULL, 'b'},
		{"topology-json", no_argument, NULL, OPT_TOPO_JSON},
		{"lspci", no_argument, NULL, OPT_LSPCI},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct doca_devinfo **list;
	enum mode mode = MODE_CAPS;
	const char *pci = NULL, *lib = NULL;
	uint32_t n, shown = 0;
	doca_error_t ret;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "p:lrvb:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pci = optarg;
			break;
		case 'l':
			mode = MODE_DEVS;
			break;
		case 'r':
			mode = MODE_REPS;
			break;
		case 'v':
			printf("doca_caps version %s (softdoca %s, %s)\n", doca_version_runtime(),
			       softdoca_version_runtime(), SOFTDOCA_FLAVOR);
			return 0;
		case 'b':
			if (!lib_known(optarg)) {
				fprintf(stderr, "doca_caps: unknown library \"%s\" for --limit-to-lib\n", optarg);
				return 1;
			}
			lib = optarg;
			break;
		case OPT_LIST_LIBS:
			return print_libs();
		case OPT_TOPO_JSON:
			return caps_print_topology_json();
		case OPT_LSPCI:
			return caps_print_lspci();
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "doca_caps: unexpected argument '%s'\n", argv[optind]);
		usage(stderr, argv[0]);
		return 1;
	}
	if (pci != NULL) {
		char canon[SD_PCI_ADDR_LEN];

		if (sd_pci_canonical(pci, canon) != DOCA_SUCCESS) {
			fprintf(stderr, "doca_caps: \"%s\" is not a PCI address\n", pci);
			return 1;
		}
	}

	ret = doca_devinfo_create_list(&list, &n);
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: failed to list devices: %s\n", doca_error_get_descr(ret));
		return 1;
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
		uint8_t eq = 1;

		if (pci != NULL && (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) != DOCA_SUCCESS || !eq))
			continue;
		if (doca_devinfo_get_pci_addr_str(list[i], addr) != DOCA_SUCCESS)
			continue;
		shown++;
		printf("PCI: %s\n", addr);
		if (mode == MODE_DEVS)
			print_attrs(list[i]);
		else if (mode == MODE_REPS)
			rc = print_reps(list[i]);
		else
			print_caps(list[i], lib);
	}
	doca_devinfo_destroy_list(list);
	if (rc == 0 && pci != NULL && shown == 0) {
		fprintf(stderr, "doca_caps: no device with PCI address %s\n", pci);
		rc = 1;
	}
	return rc;
}
