/*
 * doca_caps_view.h - doca_caps' machine-readable views (doca_caps_view.c).
 * Each prints to stdout and returns the process exit status (0 or 1).
 */
#ifndef DOCA_CAPS_VIEW_H_
#define DOCA_CAPS_VIEW_H_

#include <doca_types.h>

/* The devices, representors and capabilities this side sees, as JSON. */
/* "PF", "VF" or "SF" ("unknown" otherwise), as doca_caps prints them. */
const char *caps_func_type_name(enum doca_pci_func_type t);

int caps_print_topology_json(void);

/* This side's PCI functions, one line each as lspci prints them. */
int caps_print_lspci(void);

#endif /* DOCA_CAPS_VIEW_H_ */
