#!/usr/bin/env python3
"""The diagnostics a DOCA developer needs: SOFTDOCA_TRACE, the stuck-program
warning (SOFTDOCA_STALL_WARN_MS) and the core's DEBUG/TRACE log lines.

usage: check_diag.py CASE BUILD_DIR SOURCE_DIR [SAMPLE]
BUILD_DIR holds tests/diag/diag_dma and diag_stall; SOURCE_DIR the merge
tool (scripts/softdoca-trace-merge); SAMPLE the staged doca_dma_local_copy
(dpu flavor) for the log-level cases. Every case runs in a private fabric
and trace directory and leaves nothing behind.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WARN = re.compile(r'\[WRN\].*\(SOFTDOCA_STALL_WARN_MS=\d+ ms;')


def fail(why, out=''):
    sys.stderr.write('FAIL: %s\n' % why)
    if out:
        sys.stderr.write('---- output ----\n%s\n' % out)
    sys.exit(1)


def run(cmd, tmp, extra_env, timeout=60):
    env = dict(os.environ, SOFTDOCA_FABRIC=os.path.join(tmp, 'fabric'))
    for k in ('SOFTDOCA_TRACE', 'SOFTDOCA_STALL_WARN_MS'):
        env.pop(k, None)
    env.update(extra_env)
    os.makedirs(env['SOFTDOCA_FABRIC'], exist_ok=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def load(path):
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
    except ValueError as e:
        fail('%s is not valid JSON: %s' % (path, e), open(path, encoding='utf-8').read()[-2000:])
    if not isinstance(doc, dict) or not isinstance(doc.get('traceEvents'), list):
        fail('%s: no traceEvents list' % path)
    return doc['traceEvents']


def check_events(events, want_fail=False):
    """The shape a trace must have to make sense in Perfetto."""
    if not events:
        fail('empty trace')
    meta = [e for e in events if e.get('ph') == 'M']
    names = {e['name'] for e in meta}
    if 'process_name' not in names or 'thread_name' not in names:
        fail('metadata events missing: %s' % sorted(names))
    procs = [e['args']['name'] for e in meta if e['name'] == 'process_name']
    if not all(re.match(r'^softdoca (arm|host): ', n) for n in procs):
        fail('process names do not say the side: %s' % procs)
    timed = [e for e in events if e.get('ph') != 'M']
    for e in timed:
        for k in ('name', 'cat', 'ph', 'ts', 'pid', 'tid'):
            if k not in e:
                fail('event without %s: %s' % (k, e))
    first = min(e['ts'] for e in timed)
    last = max(e['ts'] + e.get('dur', 0) for e in timed)
    # task spans: b then e with the same id, in order, per id
    open_spans, pairs = {}, 0
    for e in sorted((e for e in timed if e['ph'] in 'be'), key=lambda e: e['ts']):
        key = (e['pid'], e['cat'], e['id'])
        if e['ph'] == 'b':
            if key in open_spans:
                fail('task id %s begun twice without an end' % e['id'])
            open_spans[key] = e
        else:
            b = open_spans.pop(key, None)
            if b is None:
                fail('task end without a begin: %s' % e)
            if b['name'] != e['name'] or e['ts'] < b['ts']:
                fail('task end does not match its begin: %s / %s' % (b, e))
            if not (first <= b['ts'] and e['ts'] <= last):
                fail('task span outside the trace')
            pairs += 1
    if open_spans:
        fail('%d task(s) begun and never ended' % len(open_spans))
    if pairs == 0:
        fail('no task spans')
    statuses = [e['args'].get('status') for e in timed if e['ph'] == 'e']
    if want_fail and not any(s not in (None, 'DOCA_SUCCESS') for s in statuses):
        fail('no failed task in the trace: %s' % sorted(set(statuses)))
    # progress spans of one thread never overlap
    spans = {}
    for e in timed:
        if e['ph'] == 'X' and e['name'] == 'progress':
            if e['args'].get('events', 0) < 1:
                fail('an empty progress call was traced: %s' % e)
            spans.setdefault((e['pid'], e['tid']), []).append((e['ts'], e['ts'] + e['dur']))
    if not spans:
        fail('no progress spans')
    for v in spans.values():
        v.sort()
        for (a0, a1), (b0, _) in zip(v, v[1:]):
            if b0 < a1 - 1e-3:
                fail('progress spans overlap: %s and %s' % ((a0, a1), b0))
    states = [e for e in timed if e['cat'] == 'ctx' and e['name'] == 'state']
    seq = [(e['args']['from'], e['args']['to']) for e in states]
    for want in (('IDLE', 'RUNNING'), ('RUNNING', 'STOPPING'), ('STOPPING', 'IDLE')):
        if want not in seq:
            fail('no %s -> %s state event: %s' % (want[0], want[1], seq))
    if want_fail and not any(e['args']['reason'].startswith('task failed: DOCA_ERROR_') for e in states):
        fail('the stop is not explained by the failed task: %s' % [e['args'] for e in states])
    return pairs


def case_trace(b, src, tmp, fail_task=False):
    path = os.path.join(tmp, 't.json')
    args = [os.path.join(b, 'diag_dma')] + (['--fail'] if fail_task else []) + ['300', '8']
    rc, out = run(args, tmp, {'SOFTDOCA_TRACE': path})
    if rc != 0:
        fail('diag_dma failed (%d)' % rc, out)
    st = os.stat(path)
    if st.st_mode & 0o777 != 0o600:
        fail('trace file mode is %o, not 600' % (st.st_mode & 0o777))
    pairs = check_events(load(path), want_fail=fail_task)
    if not fail_task and pairs < 300:
        fail('only %d task spans for 300 tasks' % pairs)


def case_pid(b, src, tmp):
    pattern = os.path.join(tmp, 't_%p.json')
    pids = []
    for _ in range(2):
        rc, out = run([os.path.join(b, 'diag_dma'), '20', '4'], tmp, {'SOFTDOCA_TRACE': pattern})
        if rc != 0:
            fail('diag_dma failed (%d)' % rc, out)
    files = sorted(glob.glob(os.path.join(tmp, 't_*.json')))
    if len(files) != 2:
        fail('expected two trace files named by pid, found %s' % files)
    for f in files:
        events = load(f)
        check_events(events)
        pid = int(re.search(r't_(\d+)\.json$', f).group(1))
        if {e['pid'] for e in events} != {pid}:
            fail('%s holds events of pids %s' % (f, {e['pid'] for e in events}))
        pids.append(pid)
    merged = os.path.join(tmp, 'merged.json')
    tool = os.path.join(src, 'scripts', 'softdoca-trace-merge')
    p = subprocess.run([sys.executable, tool, '-o', merged] + files, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail('merge failed', p.stderr)
    events = load(merged)
    check_events(events)
    if {e['pid'] for e in events} != set(pids):
        fail('merged trace lacks a process: %s' % {e['pid'] for e in events})
    # a file cut in the middle of a line (a killed process) is repaired
    with open(files[0], encoding='utf-8') as f:
        text = f.read()
    cut = os.path.join(tmp, 'cut.json')
    with open(cut, 'w', encoding='utf-8') as f:
        f.write(text[:len(text) * 2 // 3])
    p = subprocess.run([sys.executable, tool, cut], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0 or 'repaired' not in p.stderr:
        fail('a cut file was not repaired', p.stderr)
    json.loads(p.stdout)


def case_bad_path(b, src, tmp):
    target = os.path.join(tmp, 'elsewhere.json')
    with open(target, 'w') as f:
        f.write('keep me')
    link = os.path.join(tmp, 'link.json')
    os.symlink(target, link)
    for path in (os.path.join(tmp, 'no', 'such', 'dir', 't.json'), link):
        rc, out = run([os.path.join(b, 'diag_dma'), '20', '4'], tmp, {'SOFTDOCA_TRACE': path})
        if rc != 0:
            fail('an unusable trace path must not stop the program (%d)' % rc, out)
        errs = [l for l in out.splitlines() if 'SOFTDOCA_TRACE' in l and path in l]
        if len(errs) != 1 or '[ERR]' not in errs[0]:
            fail('expected one error naming %s' % path, out)
    if open(target).read() != 'keep me':
        fail('the trace followed a symbolic link')


def stall(b, tmp, mode, ms, warn):
    env = {} if warn is None else {'SOFTDOCA_STALL_WARN_MS': warn}
    return run([os.path.join(b, 'diag_stall'), mode, str(ms)], tmp, env)


def expect_warnings(b, tmp, mode, ms, warn, n, text=None):
    rc, out = stall(b, tmp, mode, ms, warn)
    if rc != 0:
        fail('diag_stall %s failed (%d)' % (mode, rc), out)
    lines = [l for l in out.splitlines() if WARN.search(l)]
    if len(lines) != n:
        fail('%s with SOFTDOCA_STALL_WARN_MS=%s for %d ms: %d warning(s), expected %d' % (mode, warn, ms,
                                                                                        len(lines), n), out)
    if text is not None and not all(text in l for l in lines):
        fail('warning does not say "%s"' % text, out)


def case_stall(b, src, tmp):
    expect_warnings(b, tmp, 'hold', 300, '200', 1, '1 null tasks in flight on null ctx')
    expect_warnings(b, tmp, 'hold', 1500, '200', 1)  # repeats only after 10 s
    expect_warnings(b, tmp, 'describe', 300, '200', 1, 'null ctx waiting for its test peer')
    expect_warnings(b, tmp, 'reset', 300, '200', 2)  # a completion re-arms it
    expect_warnings(b, tmp, 'notify', 300, '200', 1)
    expect_warnings(b, tmp, 'idle', 400, '200', 0)
    expect_warnings(b, tmp, 'late', 600, '200', 0)  # timed from the submission, not from the idle start
    expect_warnings(b, tmp, 'hold', 400, '0', 0)
    expect_warnings(b, tmp, 'hold', 150, None, 0)  # default 3 s


def case_stall_junk(b, src, tmp):
    for junk in ('-5', '12ms', '0x10', '3600001'):
        rc, out = stall(b, tmp, 'hold', 10, junk)
        if rc != 3 or 'pe_create: DOCA_ERROR_INVALID_VALUE' not in out:
            fail('SOFTDOCA_STALL_WARN_MS=%s: doca_pe_create must fail (%d)' % (junk, rc), out)
        if not any('[ERR]' in l and 'SOFTDOCA_STALL_WARN_MS' in l for l in out.splitlines()):
            fail('SOFTDOCA_STALL_WARN_MS=%s: the error does not name the variable' % junk, out)


TRANSITION = re.compile(r'\[DBG\].*DMA ctx 0x[0-9a-f]+: (IDLE|RUNNING|STOPPING) -> (RUNNING|STOPPING|IDLE) \(')
SUBMIT = re.compile(r'\[TRC\].*DMA ctx 0x[0-9a-f]+: dma_memcpy task 0x[0-9a-f]+ submitted')
COMPLETE = re.compile(r'\[TRC\].*DMA ctx 0x[0-9a-f]+: dma_memcpy task 0x[0-9a-f]+ completed: DOCA_SUCCESS')
GEOMETRY = re.compile(r'\[TRC\].*memcpy task 0x[0-9a-f]+: \d+ bytes from 0x[0-9a-f]+')


def levels(cmd, tmp, env70, env50, who):
    rc, out = run(cmd(70), tmp, env70)
    if rc != 0:
        fail('%s at level 70 failed (%d)' % (who, rc), out)
    lines = out.splitlines()
    tr = [TRANSITION.search(l).groups() for l in lines if TRANSITION.search(l)]
    for want in (('IDLE', 'RUNNING'), ('RUNNING', 'STOPPING'), ('STOPPING', 'IDLE')):
        if want not in tr:
            fail('%s: no %s -> %s line at level 70' % ((who,) + want), out)
    for what, rx in (('submit', SUBMIT), ('complete', COMPLETE), ('geometry', GEOMETRY)):
        if not any(rx.search(l) for l in lines):
            fail('%s: no task %s line at level 70' % (who, what), out)
    rc, out = run(cmd(50), tmp, env50)
    if rc != 0:
        fail('%s at level 50 failed (%d)' % (who, rc), out)
    for rx in (TRANSITION, SUBMIT, COMPLETE, GEOMETRY):
        if any(rx.search(l) for l in out.splitlines()):
            fail('%s: a DEBUG/TRACE line shown at level 50' % who, out)


def case_log_levels(b, src, tmp, sample):
    # the staged sample, with the level on its command line (dpu flavor: the host one refuses to run)
    if sample and os.path.exists(sample):
        levels(lambda l: [sample, '--sdk-log-level', str(l)], tmp, {}, {}, 'doca_dma_local_copy')
    # any flavor: the SDK level from the environment
    dma = [os.path.join(b, 'diag_dma'), '20', '4']
    levels(lambda l: dma, tmp, {'SOFTDOCA_SDK_LOG_LEVEL': '70'}, {'SOFTDOCA_SDK_LOG_LEVEL': '50'}, 'diag_dma')
    # the failure reason on a failed task
    rc, out = run([os.path.join(b, 'diag_dma'), '--fail', '20', '4'], tmp, {'SOFTDOCA_SDK_LOG_LEVEL': '60'})
    if rc != 0:
        fail('diag_dma --fail failed (%d)' % rc, out)
    if not re.search(r'DMA ctx 0x[0-9a-f]+: RUNNING -> STOPPING \(task failed: DOCA_ERROR_INVALID_VALUE\)', out):
        fail('the RUNNING -> STOPPING line does not name the failed task', out)


def main():
    case, b, src = sys.argv[1], sys.argv[2], sys.argv[3]
    sample = sys.argv[4] if len(sys.argv) > 4 else ''
    tmp = tempfile.mkdtemp(prefix='sd-diag-')
    try:
        if case == 'trace':
            case_trace(b, src, tmp)
        elif case == 'trace_fail':
            case_trace(b, src, tmp, fail_task=True)
        elif case == 'trace_pid_merge':
            case_pid(b, src, tmp)
        elif case == 'trace_bad_path':
            case_bad_path(b, src, tmp)
        elif case == 'stall':
            case_stall(b, src, tmp)
        elif case == 'stall_junk':
            case_stall_junk(b, src, tmp)
        elif case == 'log_levels':
            case_log_levels(b, src, tmp, sample)
        else:
            fail('unknown case %s' % case)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: %s' % case)


if __name__ == '__main__':
    main()
