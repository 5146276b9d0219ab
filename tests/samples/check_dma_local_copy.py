#!/usr/bin/env python3
"""Run doca_dma_local_copy (one flavor's binary) and check its log lines.

usage: check_dma_local_copy.py <binary> <flavor> <case>
Each case runs the binary once with a private fabric directory and checks the
exit status and the application log messages (order and counts).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r'^\[[^\]]*\]\[[^\]]*\]\[[^\]]*\]\[([A-Z]+)\]\[[^\]]*\]\[[^\]]*\] ?(.*)$')


def run(binary, args):
    fabric = tempfile.mkdtemp(prefix='sd-samples-')
    env = dict(os.environ, SOFTDOCA_FABRIC=fabric)
    try:
        p = subprocess.run([binary] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30, text=True)
    finally:
        shutil.rmtree(fabric, ignore_errors=True)
    msgs = []
    for line in (p.stdout + p.stderr).splitlines():
        m = LINE.match(line)
        if m:
            msgs.append((m.group(1), m.group(2)))
    return p.returncode, msgs, p.stdout + p.stderr


def fail(why, out):
    sys.stderr.write('FAIL: %s\n---- output ----\n%s\n' % (why, out))
    sys.exit(1)


def expect_success_sequence(binary, args, ntasks):
    rc, msgs, out = run(binary, args)
    if rc != 0:
        fail('exit status %d, expected 0' % rc, out)
    info = [m for (lvl, m) in msgs if lvl in ('INF', 'INFO')]
    want = (['Starting the sample', 'DMA context is running'] +
            ['DMA task was completed successfully'] * ntasks +
            ['DMA context entered into stopping state. Any inflight tasks will be flushed',
             'DMA context has been stopped'] +
            ['Success, DMA memory task %d copied and verified as correct' % i for i in range(ntasks)] +
            ['Sample finished successfully'])
    if info != want:
        fail('INFO sequence differs:\n  got  %r\n  want %r' % (info, want), out)
    errs = [m for (lvl, m) in msgs if lvl in ('ERR', 'CRT', 'CRIT')]
    if errs:
        fail('unexpected errors: %r' % errs, out)


def expect_failure(binary, args, needle):
    rc, msgs, out = run(binary, args)
    if rc == 0:
        fail('exit status 0, expected a failure', out)
    if needle not in out:
        fail('missing %r in the output' % needle, out)
    if any(m == 'Sample finished successfully' for (_, m) in msgs):
        fail('reported success', out)


LONG_TEXT = 'x' * 5000

DPU_CASES = {
    'lesson': lambda b: expect_success_sequence(b, ['-p', '03:00.0', '-t', 'hello dell lab', '-nt', '4'], 4),
    'defaults': lambda b: expect_success_sequence(b, [], 1),
    'long_flags': lambda b: expect_success_sequence(
        b, ['--pci-addr', '0000:03:00.0', '--text', 'long flags', '--num-tasks', '3'], 3),
    'chained_dst': lambda b: expect_success_sequence(b, ['-p', '03:00.0', '-nt', '4', '-nd', '2'], 4),
    'chained_both': lambda b: expect_success_sequence(
        b, ['-p', '03:00.0', '-t', 'chains of segments', '-nt', '5', '-ns', '3', '-nd', '7'], 5),
    'max_tasks': lambda b: expect_success_sequence(b, ['-nt', '128', '-t', 'a'], 128),
    'profiling': lambda b: expect_success_sequence(b, ['-nt', '2', '-mnr', '4'], 2),
    'nt_zero': lambda b: expect_failure(b, ['-nt', '0'], 'out of range [1, 128]'),
    'nt_too_big': lambda b: expect_failure(b, ['-nt', '129'], 'out of range [1, 128]'),
    'nt_not_int': lambda b: expect_failure(b, ['-nt', 'four'], 'four'),
    'mnr_too_big': lambda b: expect_failure(b, ['-mnr', '129'], 'out of range [0, 128]'),
    'mnr_negative': lambda b: expect_failure(b, ['-mnr', '-1'], 'out of range [0, 128]'),
    'text_empty': lambda b: expect_failure(b, ['-t', ''], 'Entered text is empty'),
    'text_too_long': lambda b: expect_failure(b, ['-t', LONG_TEXT], 'exceeds the maximum size of 4096'),
    'pci_too_long': lambda b: expect_failure(b, ['-p', '0000:03:00.0.0.0'], 'is not valid'),
    'pci_unknown': lambda b: expect_failure(b, ['-p', '05:00.0'], 'Failed to open DOCA device 05:00.0'),
    'ns_zero': lambda b: expect_failure(b, ['-ns', '0'], 'must be at least 1'),
    'nd_zero': lambda b: expect_failure(b, ['-nd', '0'], 'must be at least 1'),
    'ns_over_list_len': lambda b: expect_failure(b, ['-ns', '33', '-t', LONG_TEXT[:100]],
                                                 "exceeds the device's maximum buffer list length"),
    'nd_over_text': lambda b: expect_failure(b, ['-nd', '5', '-t', 'abc'], 'cannot be split'),
    'unknown_flag': lambda b: expect_failure(b, ['--bogus'], 'bogus'),
}

HOST_CASES = {
    'host_guard': lambda b: expect_failure(b, [], 'Local DMA copy can run only on the DPU'),
    'host_guard_flags': lambda b: expect_failure(b, ['-p', '3b:00.0', '-nt', '4'],
                                                 'Local DMA copy can run only on the DPU'),
    'host_profiling': lambda b: expect_success_sequence(b, ['-p', '3b:00.0', '-nt', '2', '-mnr', '2'], 2),
    'host_no_ns': lambda b: expect_failure(b, ['-ns', '2', '-mnr', '1', '-p', '3b:00.0'], 'ns'),
    'nt_too_big': lambda b: expect_failure(b, ['-nt', '129'], 'out of range [1, 128]'),
}


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    binary, flavor, case = sys.argv[1:]
    cases = DPU_CASES if flavor == 'dpu' else HOST_CASES
    if case not in cases:
        sys.stderr.write('unknown case %s for flavor %s\n' % (case, flavor))
        return 2
    cases[case](binary)
    return 0


if __name__ == '__main__':
    sys.exit(main())
