#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the documentation and the module's code name the same things.

Three lists are compared, in both directions:

  module parameters  every module_param*() / core_param() in module/*.c
                     against the parameter table of Documentation/kvbench.rst
                     (the table whose first column is headed "Parameter")
  sysfs files        every DEVICE_ATTR*() / __ATTR*() in module/*.c, each
                     also listed in an attribute array, against the "What:"
                     lines of Documentation/ABI/testing/sysfs-class-misc-kvbench
                     and the sysfs table of Documentation/kvbench.rst (first
                     column headed "File")
  ioctl errnos       every -E... that a function reachable from the
                     .unlocked_ioctl handler contains, with the errnos the
                     VFS translates (-ENOIOCTLCMD becomes ENOTTY), against
                     the errno table of Documentation/userspace-api/kvbench.rst
                     (first column headed "errno")

The C files are read with comments, strings and character literals blanked
out, so prose such as "Return: 0 or -ENOSPC" in a comment counts for nothing.
The call graph is built from identifiers: a function that names another
(calls it or passes it as a callback) reaches it, and a call through a
pointer member (->get(...)) reaches every function assigned to that member
(.get = ...) in any initializer. Errnos that only kernel helpers return are
not seen; none of ours comes from one. An errno that a function returns
only to callers that handle it (e.g. -EEXIST meaning "retry") is excused by
a line "<ERRNO> <function> <why>" in tools/lint/doccheck-exceptions.

Usage: doccheck.py [REPO]     (default: two levels above this script)
Prints one line per mismatch and exits 1 when there is any, 0 otherwise.
"""

import os
import re
import sys
from collections import defaultdict

import docutils.core
import docutils.nodes
import docutils.utils

PARAM_DOC = 'Documentation/kvbench.rst'
SYSFS_DOC = 'Documentation/kvbench.rst'
ABI_DOC = 'Documentation/ABI/testing/sysfs-class-misc-kvbench'
ERRNO_DOC = 'Documentation/userspace-api/kvbench.rst'
CLASS_DIR = '/sys/class/misc/kvbench/'
PARAM_DIR = '/sys/module/kvbench/parameters/'
EXCEPTIONS = 'tools/lint/doccheck-exceptions'

# Kernel-internal codes and what a caller of ioctl(2) sees instead.
ERRNO_TRANSLATED = {
    'ENOIOCTLCMD': 'ENOTTY',
    'ERESTARTSYS': 'EINTR',
    'ERESTARTNOINTR': None,      # always restarted, never seen
    'ERESTARTNOHAND': 'EINTR',
    'ERESTART_RESTARTBLOCK': 'EINTR',
}

PARAM_RE = re.compile(
    r'\b(module_param(?:_named|_cb|_array|_array_named|_string|_unsafe|'
    r'_named_unsafe|_cb_unsafe|_hw|_hw_named|_hw_array)?|core_param)'
    r'\s*\(\s*([A-Za-z_]\w*)')
PARM_DESC_RE = re.compile(r'\bMODULE_PARM_DESC\s*\(\s*([A-Za-z_]\w*)')
ATTR_RE = re.compile(
    r'\b(DEVICE_ATTR(?:_RO|_RW|_WO|_ADMIN_RO|_ADMIN_RW)?|'
    r'DEVICE_(?:ULONG|INT|BOOL|STRING)_ATTR(?:_RO)?|'
    r'__ATTR(?:_RO|_RW|_WO|_RO_MODE|_RW_MODE|_WO_MODE)?)'
    r'\s*\(\s*([A-Za-z_]\w*)')
ATTR_ARRAY_RE = re.compile(
    r'\bstruct\s+attribute\s*\*\s*(\w+)\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;', re.S)
ERRNO_RE = re.compile(r'-\s*(E[A-Z0-9_]+)\b')
WORKER_RE = re.compile(
    r'\b(kthread_(?:create|run)\w*|INIT_(?:DELAYED_)?WORK|kthread_init_work)'
    r'\s*\([^;]*?\b([A-Za-z_]\w*)\s*[,)]')
IDENT_RE = re.compile(r'\b[A-Za-z_]\w*\b')
MEMBER_CALL_RE = re.compile(r'->\s*([A-Za-z_]\w*)\s*\(')
DESIGNATED_RE = re.compile(
    r'[{,]\s*\.\s*([A-Za-z_]\w*)\s*=\s*&?\s*([A-Za-z_]\w*)(?=\s*[,}])')
C_KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do',
              'else', 'case', 'goto', 'typeof', '__typeof__', 'defined'}


def blank(m):
    """Replace a match by spaces, keeping its newlines (and line numbers)."""
    return re.sub(r'[^\n]', ' ', m.group(0))


def strip_c(text):
    """Blank out comments, string and character literals."""
    pat = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'
                     r"'(?:\\.|[^'\\\n])*'", re.S)
    return pat.sub(blank, text)


class Source:
    """One C file, stripped, with helpers to turn offsets into lines."""

    def __init__(self, repo, rel):
        self.rel = rel
        with open(os.path.join(repo, rel), encoding='utf-8') as f:
            raw = f.read()
        self.text = strip_c(raw)
        # Preprocessor lines (with their continuations), kept separately.
        self.directives = []
        for m in re.finditer(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', self.text, re.M):
            self.directives.append((m.start(), m.group(0)))
        self.code = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', blank,
                           self.text, flags=re.M)
        self.nl = [i for i, c in enumerate(self.text) if c == '\n']

    def line(self, off):
        lo, hi = 0, len(self.nl)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.nl[mid] < off:
                lo = mid + 1
            else:
                hi = mid
        return lo + 1

    def where(self, off):
        return '%s:%d' % (self.rel, self.line(off))


def module_sources(repo):
    out = []
    mdir = os.path.join(repo, 'module')
    for name in sorted(os.listdir(mdir)):
        if name.endswith('.mod.c') or not name.endswith(('.c', '.h')):
            continue
        out.append(Source(repo, 'module/' + name))
    return out


def top_level_blocks(src):
    """Yield (header, body, body_offset) for every {...} at depth 0."""
    code = src.code
    depth = 0
    stmt_start = 0
    body_start = None
    for i, c in enumerate(code):
        if c == '{':
            if depth == 0:
                body_start = i
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                yield code[stmt_start:body_start], code[body_start:i + 1], \
                    body_start
                stmt_start = i + 1
        elif c == ';' and depth == 0:
            stmt_start = i + 1


def initializers(text):
    """Yield (struct type, body) of each "struct T x = {...}" or
    "(struct T){...}" in @text."""
    for m in re.finditer(r'\bstruct\s+(\w+)[\w\s*\[\]]*=\s*\{|'
                         r'\(\s*struct\s+(\w+)\s*\)\s*\{', text):
        depth, start = 0, m.end() - 1
        for i in range(start, len(text)):
            if text[i] == '{':
                depth += 1
            elif text[i] == '}':
                depth -= 1
                if depth == 0:
                    break
        yield m.group(1) or m.group(2), text[start:i + 1]


def parse_functions(sources):
    """Return the functions {name: [(src, body, off)]} and the designated
    initializers {struct type: {member: {function, ...}}}."""
    funcs = defaultdict(list)
    members = defaultdict(lambda: defaultdict(set))
    for src in sources:
        for header, body, off in top_level_blocks(src):
            if '=' in header:
                text = header + body
            else:
                m = re.search(r'([A-Za-z_]\w*)\s*\(', header)
                if m and m.group(1) not in C_KEYWORDS:
                    funcs[m.group(1)].append((src, body, off))
                text = body
            for stype, init in initializers(text):
                for d in DESIGNATED_RE.finditer(init):
                    members[stype][d.group(1)].add(d.group(2))
        # Function-like and object-like macros count as functions.
        for off, text in src.directives:
            m = re.match(r'\s*#\s*define\s+([A-Za-z_]\w*)', text)
            if m:
                funcs[m.group(1)].append((src, text, off))
    return funcs, members


def own_struct_types(sources):
    """The struct types the module itself defines."""
    return {m.group(1) for src in sources
            for m in re.finditer(r'\bstruct\s+(\w+)\s*\{', src.code)}


def ioctl_errnos(sources, internal, problems):
    """Errnos reachable from the ioctl handlers: {errno: [where, ...]}.
    @internal: {(errno, function): [where, used]} of errnos a function
    returns only to its callers, which handle them (marked used here)."""
    funcs, members = parse_functions(sources)
    # Our code calls through pointers of its own ops types only; the
    # kernel's (file_operations, kernel_param_ops, ...) call into us from
    # outside, and the ioctl handlers are where that starts.
    ours = own_struct_types(sources)
    calls = defaultdict(set)
    for stype, table in members.items():
        if stype in ours:
            for member, targets in table.items():
                calls[member] |= targets
    entries = [f for table in members.values()
               for key in ('unlocked_ioctl', 'compat_ioctl')
               for f in table.get(key, ()) if f in funcs]
    if not entries:
        problems.append('module/*.c: no .unlocked_ioctl handler defined in '
                        'the module; cannot find the ioctl paths')
        return {}, {}
    # Threads and work items the module starts run requests the ioctls
    # hand over (the kthread backend's owner): their errnos reach callers.
    for src in sources:
        for m in WORKER_RE.finditer(src.code):
            if m.group(2) in funcs:
                entries.append(m.group(2))
    seen, todo = set(), list(entries)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for _, body, _ in funcs[name]:
            for ident in set(IDENT_RE.findall(body)):
                if ident in funcs and ident not in seen:
                    todo.append(ident)
            for m in MEMBER_CALL_RE.finditer(body):
                for target in calls.get(m.group(1), ()):
                    if target in funcs and target not in seen:
                        todo.append(target)

    reachable, elsewhere = defaultdict(list), defaultdict(list)
    for name, defs in funcs.items():
        for src, body, off in defs:
            for m in ERRNO_RE.finditer(body):
                # "x == -ENOENT" tests an errno, it does not produce one.
                if body[:m.start()].rstrip().endswith(('==', '!=')):
                    continue
                code = m.group(1)
                user = ERRNO_TRANSLATED.get(code, code)
                if user is None:
                    continue
                where = '%s (%s%s)' % (src.where(off + m.start()), name,
                                       '' if user == code else
                                       ', -%s seen as %s' % (code, user))
                if name in seen and (user, name) in internal:
                    internal[(user, name)][1] = True
                    continue
                (reachable if name in seen else elsewhere)[user].append(where)
    return reachable, elsewhere


def read_internal(repo, problems):
    """The exception list: errnos some function produces that no ioctl
    caller ever sees, {(errno, function): [where, used]}."""
    out = {}
    path = os.path.join(repo, EXCEPTIONS)
    if not os.path.exists(path):
        return out
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if re.match(r'\s*(#|$)', line):
                continue
            where = '%s:%d' % (EXCEPTIONS, n)
            fields = line.split(None, 2)
            if len(fields) < 3 or not re.fullmatch(r'E[A-Z0-9]+', fields[0]):
                problems.append('%s: want "<ERRNO> <function> <why callers '
                                'never see it>": %s' % (where, line.strip()))
                continue
            out[(fields[0], fields[1])] = [where, False]
    return out


def code_params(sources, problems):
    params, descs = {}, set()
    for src in sources:
        for m in PARAM_RE.finditer(src.code):
            name = m.group(2)
            if name in params:
                problems.append('%s: parameter %s defined twice (also %s)' %
                                (src.where(m.start()), name, params[name]))
            params[name] = src.where(m.start())
        descs.update(m.group(1) for m in PARM_DESC_RE.finditer(src.code))
    for name, where in sorted(params.items()):
        if name not in descs:
            problems.append('%s: parameter %s has no MODULE_PARM_DESC()' %
                            (where, name))
    return params


def code_sysfs(sources, problems):
    """sysfs attributes that are defined and listed in an attribute array."""
    listed = set()
    for src in sources:
        for m in ATTR_ARRAY_RE.finditer(src.code):
            listed.update(re.findall(r'&\s*(\w+)\s*\.\s*attr\b', m.group(2)))
    attrs = {}
    for src in sources:
        for m in ATTR_RE.finditer(src.code):
            macro, name = m.group(1), m.group(2)
            if macro.startswith('DEVICE_'):
                var = 'dev_attr_' + name
            else:
                # __ATTR*() initialises the variable being declared.
                before = src.code[:m.start()]
                cut = max(before.rfind(';'), before.rfind('}'))
                d = re.search(r'([A-Za-z_]\w*)\s*(?:\[\s*\w*\s*\])?\s*=\s*\{?\s*$',
                              before[cut + 1:])
                var = d.group(1) if d else None
            where = src.where(m.start())
            if name in attrs:
                problems.append('%s: sysfs file %s defined twice (also %s)' %
                                (where, name, attrs[name]))
            if var is None or var not in listed:
                problems.append('%s: sysfs attribute %s is in no '
                                '"struct attribute *...[]" array, so no such '
                                'file exists' % (where, name))
                continue
            attrs[name] = where
    return attrs


def doc_line(repo, rel, needle):
    """The first line of @rel containing @needle, for messages."""
    with open(os.path.join(repo, rel), encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if needle in line:
                return '%s:%d' % (rel, n)
    return rel


def rst_tables(repo, rel, problems):
    """{first header cell text: [first-column cell texts]} of every table."""
    path = os.path.join(repo, rel)
    with open(path, encoding='utf-8') as f:
        text = f.read()
    settings = {'report_level': 5, 'halt_level': 5,
                'file_insertion_enabled': False, 'raw_enabled': False}
    try:
        doctree = docutils.core.publish_doctree(
            text, source_path=path, settings_overrides=settings)
    except Exception as e:          # pylint: disable=broad-except
        problems.append('%s: cannot parse: %s' % (rel, e))
        return {}
    tables = {}
    for table in doctree.findall(docutils.nodes.table) \
            if hasattr(doctree, 'findall') else \
            doctree.traverse(docutils.nodes.table):
        head = [r for r in table.traverse(docutils.nodes.row)
                if isinstance(r.parent, docutils.nodes.thead)]
        body = [r for r in table.traverse(docutils.nodes.row)
                if isinstance(r.parent, docutils.nodes.tbody)]
        if not head or not body:
            continue
        key = head[0][0].astext().strip()
        tables.setdefault(key, []).extend(
            r[0].astext().strip() for r in body if len(r))
    return tables


def doc_column(repo, rel, header, what, problems):
    tables = rst_tables(repo, rel, problems)
    if header not in tables:
        problems.append('%s: no table with a first column headed "%s" '
                        '(the %s table)' % (rel, header, what))
        return {}
    out = {}
    for cell in tables[header]:
        if not cell:
            continue            # continuation of the row above
        name = cell.strip('`').strip()
        out.setdefault(name, doc_line(repo, rel, cell))
    return out


def abi_entries(repo, problems):
    """{path: line} of the What: lines, checking each entry's fields."""
    rel = ABI_DOC
    out = {}
    fields = ('What', 'Date', 'KernelVersion', 'Contact', 'Description')
    try:
        f = open(os.path.join(repo, rel), encoding='utf-8')
    except OSError as e:
        problems.append('%s: %s' % (rel, e.strerror))
        return out
    with f:
        lines = f.read().split('\n')
    entry, start = None, 0

    def close():
        if entry is None:
            return
        for field in fields:
            if field not in entry:
                problems.append('%s:%d: entry has no "%s:" field' %
                                (rel, start, field))

    for n, line in enumerate(lines, 1):
        m = re.match(r'^([A-Za-z]+):\s*(.*)$', line)
        if not m:
            continue
        key, val = m.group(1), m.group(2).strip()
        if key == 'What':
            if entry is None or set(entry) != {'What'}:
                close()
                entry, start = {}, n
            entry['What'] = True
            out[val] = n
        elif key in fields and entry is not None:
            entry[key] = True
    close()
    return out


def compare(code, docs, code_what, doc_what, code_has, problems):
    for name in sorted(set(code) - set(docs)):
        problems.append('%s: %s %s is not in %s' %
                        (code[name], code_what, name, doc_what))
    for name in sorted(set(docs) - set(code)):
        problems.append('%s: %s lists %s %s, but %s' %
                        (docs[name], doc_what, code_what, name, code_has))


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    problems, notes = [], []
    sources = module_sources(repo)

    params = code_params(sources, problems)
    attrs = code_sysfs(sources, problems)
    internal = read_internal(repo, problems)
    errnos, elsewhere = ioctl_errnos(sources, internal, problems)
    for (errno, func), (where, used) in sorted(internal.items()):
        if used:
            notes.append('%s in %s() is internal, excused by %s' %
                         (errno, func, where))
        else:
            problems.append('%s: stale exception: no function reachable from '
                            'the ioctl handler named %s produces %s' %
                            (where, func, errno))
    errno_first = {e: w[0] for e, w in errnos.items()}

    doc_params = doc_column(repo, PARAM_DOC, 'Parameter', 'parameter',
                            problems)
    doc_files = doc_column(repo, SYSFS_DOC, 'File', 'sysfs', problems)
    doc_errnos = doc_column(repo, ERRNO_DOC, 'errno', 'errno', problems)
    for name, where in sorted(doc_errnos.items()):
        if not re.fullmatch(r'E[A-Z0-9]+', name):
            problems.append('%s: "%s" in the errno table is not an errno' %
                            (where, name))

    abi_files, abi_params = {}, {}
    for path, n in abi_entries(repo, problems).items():
        where = '%s:%d' % (ABI_DOC, n)
        if path.startswith(CLASS_DIR) and '/' not in path[len(CLASS_DIR):]:
            abi_files[path[len(CLASS_DIR):]] = where
        elif path.startswith(PARAM_DIR) and '/' not in path[len(PARAM_DIR):]:
            abi_params[path[len(PARAM_DIR):]] = where
        else:
            problems.append('%s: What: %s is neither under %s nor %s' %
                            (where, path, CLASS_DIR, PARAM_DIR))

    compare(params, doc_params, 'module parameter',
            'the parameter table of ' + PARAM_DOC,
            'no module_param*() in module/*.c defines it', problems)
    for name in sorted(set(abi_params) - set(params)):
        problems.append('%s: What: line for parameter %s, but no '
                        'module_param*() in module/*.c defines it' %
                        (abi_params[name], name))
    no_attr = ('no DEVICE_ATTR*()/__ATTR*() listed in an attribute array '
               'in module/*.c defines it')
    compare(attrs, abi_files, 'sysfs file',
            'a "What: %s<name>" line of %s' % (CLASS_DIR, ABI_DOC),
            no_attr, problems)
    compare(attrs, doc_files, 'sysfs file',
            'the sysfs table of ' + SYSFS_DOC, no_attr, problems)
    compare(errno_first, doc_errnos, 'ioctl errno',
            'the errno table of ' + ERRNO_DOC,
            'no function reachable from the ioctl handler returns it',
            problems)

    for e in sorted(set(elsewhere) - set(errnos)):
        notes.append('%s is used only outside the ioctl paths (%s); the '
                     'errno table need not list it' %
                     (e, ', '.join(elsewhere[e][:3])))

    print('code: %d parameters, %d sysfs files, %d ioctl errnos (%s)' %
          (len(params), len(attrs), len(errnos), ' '.join(sorted(errnos))))
    print('docs: %d parameters, %d sysfs files (table), %d ABI entries, '
          '%d errnos' % (len(doc_params), len(doc_files), len(abi_files),
                         len(doc_errnos)))
    for n in notes:
        print('note: ' + n)
    for p in problems:
        print('MISMATCH: ' + p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
