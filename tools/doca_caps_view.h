/*
 * doca_caps_view.h - doca_caps' machine-readable views (doca_caps_view.c).
 * Each prints to stdout and returns the process exit status (0 or 1).
 */
#ifndef DOCA_CAPS_VIEW_H_
#define DOCA_CAPS_VIEW_H_

/* The devices, representors and capabilities this side sees, as JSON. */
int caps_print_topology_json(void);

/* This side's PCI functions, one line each as lspci prints them. */
int caps_print_lspci(void);

#endif /* DOCA_CAPS_VIEW_H_ */
