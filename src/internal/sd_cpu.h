/*
 * sd_cpu.h - the one spin-wait step every busy-wait in softdoca takes.
 *
 * A loop that polls memory another thread or process will change calls
 * sd_cpu_relax() between looks: the CPU learns it is a busy-wait (on x86
 * "pause" frees the sibling hyperthread and keeps the loop from flooding
 * the memory order buffer; on Arm "yield" hints the same), and it is a
 * compiler barrier, so the loop reloads what it waits on. No spin in
 * softdoca is unbounded: callers count their steps and then sleep.
 */
#ifndef SD_CPU_H_
#define SD_CPU_H_

static inline void sd_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* SD_CPU_H_ */
