/*
 * Shared set-up of the argp fuzz targets: a fixed program description with
 * a flag of every type (multi-letter short names, mandatory, multi, long
 * only, short only, CLI only), run once per input.
 */
#ifndef SD_FUZZ_COMMON_H_
#define SD_FUZZ_COMMON_H_

#include <stdbool.h>
#include <stddef.h>

/* Set by a target whose input may be a -j file: there a boolean flag has
 * the value written ("verbose": false), on the command line it is true. */
extern bool sd_fuzz_json_bools;

/*
 * Register the params, run doca_argp_start(argc, argv) and destroy.
 * variant bits: 1 = program name from argv[0] (init with NULL), 2 = version
 * callback, 4 = DPDK callback. Aborts on anything that is not a clean
 * outcome (a non-zero exit, an unexpected status, a broken invariant).
 */
void sd_fuzz_argp_run(unsigned int variant, int argc, char **argv);

/* One-time set-up: log backends on /dev/null so every line is formatted. */
void sd_fuzz_init(void);

#endif /* SD_FUZZ_COMMON_H_ */
