#!/usr/bin/env python3
"""Check softdoca's public headers against DOCA's published API reference.

The reference is a Doxygen HTML tree of DOCA's headers (for example a local
checkout of a public mirror, passed as --docs). From each in-scope header page
this reads the summary rows (macros, typedefs, enumerations, functions) and
writes a C file of compile-time checks against our headers:

  function   __builtin_types_compatible_p(__typeof__(f), RET (PARAMS))
  enum value _Static_assert on its value (explicit, or previous + 1)
  macro      #ifndef NAME -> a named failure
  typedef    the name is a type (function-pointer typedefs: compatible)

The checks are compiled one per translation unit group against a flavor's
include directory, and the result is a table and a 'N of M present' line per
kind. Nothing of the reference is copied into this repository: the reference
is read at run time from the user's checkout.
"""
import argparse, html, json, os, re, subprocess, sys, tempfile

IN_SCOPE = ['argp', 'buf', 'buf_array', 'buf_inventory', 'buf_pool', 'comch',
            'comch_consumer', 'comch_producer', 'compat', 'ctx', 'dev', 'dma',
            'error', 'log', 'mmap', 'pe', 'types', 'version']
LATER = ['graph', 'sync_event', 'mmap_advise']   # issue 13's new objects

def page_name(header):
    return 'doca__' + header.replace('_', '__') + '_8h.html'

def read_page(docs, name):
    path = os.path.join(docs, name)
    if os.path.isfile(path):
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    # a git mirror without a work tree
    if os.path.isdir(os.path.join(docs, '..', 'objects')) or docs.endswith('.git') or os.path.isdir(os.path.join(docs, 'objects')):
        r = subprocess.run(['git', '-C', docs, 'show', 'HEAD:docs/' + name], capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else None
    return None

def text(fragment):
    return ' '.join(html.unescape(re.sub(r'<[^>]+>', '', fragment)).replace('\xa0', ' ').split())

def rows(page):
    parts = re.split(r'<h2 class="groupheader">(.*?)</h2>', page, flags=re.S)
    for i in range(1, len(parts), 2):
        section = text(parts[i])
        for r in re.findall(r'<tr class="memitem:[^"]*"[^>]*>(.*?)</tr>', parts[i + 1], re.S):
            yield section, text(r)

ATTRS = re.compile(r'\b(DOCA_STABLE|DOCA_EXPERIMENTAL|DOCA_DEPRECATED|DOCA_USED|__DOCA_EXPERIMENTAL|static|inline|__inline__|__attribute__\s*\(\(.*?\)\))')

def parse(docs, headers):
    surf = {'functions': {}, 'enums': {}, 'macros': {}, 'typedefs': {}}
    for h in headers:
        page = read_page(docs, page_name(h))
        if page is None:
            continue
        for section, row in rows(page):
            if section == 'Functions':
                m = re.match(r'(.*?)\b(doca_\w+)\s*\((.*)\)\s*$', row)
                if m:
                    experimental = 'DOCA_EXPERIMENTAL' in m.group(1)
                    ret = ATTRS.sub('', m.group(1)).strip()
                    surf['functions'][m.group(2)] = {'header': h, 'ret': ret, 'params': m.group(3).strip(),
                                                     'experimental': experimental}
            elif section == 'Macros':
                m = re.match(r'#define\s+(\w+)', row)
                if m:
                    surf['macros'][m.group(1)] = {'header': h}
            elif section == 'Enumerations':
                m = re.match(r'enum\s+(\w+)\s*\{(.*)\}', row)
                if m:
                    vals = []
                    for item in split_top(m.group(2)):
                        name, _, expr = item.partition('=')
                        vals.append([name.strip(), expr.strip()])
                    surf['enums'][m.group(1)] = {'header': h, 'values': vals}
            elif section == 'Typedefs':
                m = re.match(r'typedef\s+(.*?)\(\*\s*(\w+)\)\s*(\(.*\))\s*$', row)
                if m:
                    surf['typedefs'][m.group(2)] = {'header': h, 'fnptr': '%s(*)%s' % (m.group(1), m.group(3))}
                else:
                    m = re.match(r'typedef\s+(.*?)\b(\w+)\s*$', row)
                    if m:
                        surf['typedefs'][m.group(2)] = {'header': h, 'type': m.group(1).strip()}
    return surf

def split_top(body):
    out, depth, cur = [], 0, ''
    for ch in body:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur); cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [o for o in (x.strip() for x in out) if o]

def checks(surf):
    """One (kind, name, C text) per item; every C text stands alone after the includes."""
    for name, f in sorted(surf['functions'].items()):
        params = f['params'] or 'void'
        yield 'function', name, ('_Static_assert(__builtin_types_compatible_p(__typeof__(%s), %s (%s)), "%s");'
                                 % (name, f['ret'], params, name))
    for ename, e in sorted(surf['enums'].items()):
        prev = None
        for vname, expr in e['values']:
            if expr:
                want = '(%s)' % expr
            elif prev is None:
                want = '0'
            else:
                want = '(%s + 1)' % prev
            yield 'enum', vname, '_Static_assert((long long)(%s) == (long long)%s, "%s");' % (vname, want, vname)
            prev = vname
    for name in sorted(surf['macros']):
        if name.startswith('__') or name in ('DLL_EXPORT_ATTR',):
            continue
        yield 'macro', name, '#ifndef %s\n#error "missing macro %s"\n#endif' % (name, name)
    for name, t in sorted(surf['typedefs'].items()):
        if 'fnptr' in t:
            yield 'type', name, ('_Static_assert(__builtin_types_compatible_p(%s, %s), "%s");' % (name, t['fnptr'], name))
        else:
            yield 'type', name, 'extern %s *softdoca_surface_probe_%s;' % (name, name)

def run(surf, cflags, prelude):
    items = list(checks(surf))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        # one file per item, compiled in parallel: an error in one never hides another
        procs = []
        for idx, (kind, name, code) in enumerate(items):
            src = os.path.join(tmp, 'c%d.c' % idx)
            with open(src, 'w') as f:
                f.write(prelude + '\n' + code + '\n')
            procs.append((kind, name, src))
        batch = 16
        for i in range(0, len(procs), batch):
            running = [(k, n, subprocess.Popen(['cc', '-fsyntax-only', '-std=gnu11', '-w'] + cflags + [s],
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
                       for k, n, s in procs[i:i + batch]]
            for k, n, p in running:
                _, err = p.communicate()
                first = next((l for l in err.splitlines() if 'error' in l), '')
                results[(k, n)] = (p.returncode == 0, first.split('error:', 1)[-1].strip())
    return items, results

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--docs', required=True, help='Doxygen HTML folder of DOCA\'s headers, or a git mirror of it')
    ap.add_argument('--include', action='append', default=[], help='include directory of a softdoca flavor')
    ap.add_argument('--headers', default='in-scope', help="'in-scope', 'all' (adds graph, sync_event, mmap_advise) or a comma list")
    ap.add_argument('--dump', help='write the parsed reference surface as JSON here')
    ap.add_argument('--missing', action='store_true', help='list every failing item')
    a = ap.parse_args()
    headers = IN_SCOPE if a.headers == 'in-scope' else IN_SCOPE + LATER if a.headers == 'all' else a.headers.split(',')
    surf = parse(a.docs, headers)
    if not surf['functions']:
        print('surface: no function found under %s' % a.docs, file=sys.stderr)
        return 2
    if a.dump:
        with open(a.dump, 'w') as f:
            json.dump(surf, f, indent=1, sort_keys=True)
    prelude = '#define DOCA_ALLOW_EXPERIMENTAL_API\n#include <stddef.h>\n#include <stdint.h>\n#include <stdbool.h>\n' + \
              ''.join('#if __has_include(<doca_%s.h>)\n#include <doca_%s.h>\n#endif\n' % (h, h) for h in headers)
    items, results = run(surf, ['-I' + d for d in a.include], prelude)
    total = {}
    for kind, name, _ in items:
        ok, why = results[(kind, name)]
        t = total.setdefault(kind, [0, 0])
        t[1] += 1
        t[0] += ok
        if not ok and a.missing:
            print('MISSING %-8s %-60s %s' % (kind, name, why[:120]))
    for kind in ('function', 'enum', 'type', 'macro'):
        if kind in total:
            print('%-8s %d of %d present and matching' % (kind, total[kind][0], total[kind][1]))
    return 0 if all(t[0] == t[1] for t in total.values()) else 1

if __name__ == '__main__':
    sys.exit(main())
