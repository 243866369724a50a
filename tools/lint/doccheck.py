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
                     .unlocked_ioctl or .uring_cmd handler contains, with
                     the errnos the VFS translates (-ENOIOCTLCMD becomes
                     ENOTTY) and without those io_uring never posts
                     (-EIOCBQUEUED, -EAGAIN), against
                     the errno table of Documentation/userspace-api/kvbench.rst
                     (first column headed "errno")

and the command line of tools/kvbench, in both directions too:

  options            every option in each --help text (the top level's and
                     each subcommand's: the string arrays of
                     tools/kvbench/**/*.c that start "Usage: kvbench") against
                     the option tables of tools/kvbench/README.md (rows whose
                     first cell starts with `-`; the section "## kvbench
                     SUB" documents subcommand SUB, "## Commands" the top
                     level), with the same short letter; each --help
                     against the getopt_long() option table and short
                     options of its file; and a short letter means the
                     same long option in every command
  backends           every backend the module defines (.name = "..." in
                     module/*.c) and every target the tool knows is named
                     in bench --help and in the README's --backends row
  man page           every option of each --help text against the option
                     lists of its section of Documentation/kvbench.1.rst,
                     kvbench(1): "OPTIONS" for the top level, "BENCH
                     OPTIONS" for bench, "<COMMAND> OPTIONS" for any other
                     command with a --help (a new command is a new section,
                     a new option a new entry), with the same short letter

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
       doccheck.py --self-test  checks that the checker finds an
                                undocumented option, a documented option
                                that does not exist, a short letter that
                                differs, a backend left out, and an option
                                or a section the man page lacks
Prints one line per mismatch and exits 1 when there is any, 0 otherwise.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
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
TOOL_DIR = 'tools/kvbench'
TOOL_DOC = 'tools/kvbench/README.md'
MAN_DOC = 'Documentation/kvbench.1.rst'
TOP = '(top level)'

# Kernel-internal codes and what a caller of ioctl(2) sees instead.
ERRNO_TRANSLATED = {
    'ENOIOCTLCMD': 'ENOTTY',
    'ERESTARTSYS': 'EINTR',
    'ERESTARTNOINTR': None,      # always restarted, never seen
    'ERESTARTNOHAND': 'EINTR',
    'ERESTART_RESTARTBLOCK': 'EINTR',
    # .uring_cmd: the command is queued and completes later; io_uring
    # issues it again from a worker that may block.
    'EIOCBQUEUED': None,
    'EAGAIN': None,
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
               for key in ('unlocked_ioctl', 'compat_ioctl', 'uring_cmd')
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


def c_string_arrays(path, macros):
    """{name: (text, line)} of each "char name[] = "..." "..." ;" in a C
    file, the literals joined and macros that are strings expanded."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    out = {}
    lit = r'"(?:\\.|[^"\\\n])*"'
    for m in re.finditer(r'\bchar\s+(\w+)\s*\[\s*\]\s*=\s*((?:\s*(?:%s|[A-Z_][A-Z0-9_]*))+)\s*;'
                         % lit, text):
        parts = re.findall(r'%s|[A-Z_][A-Z0-9_]*' % lit, m.group(2))
        val = ''
        for part in parts:
            if part.startswith('"'):
                val += part[1:-1].encode('utf-8').decode('unicode_escape')
            else:
                val += macros.get(part, '')
        out[m.group(1)] = (val, text.count('\n', 0, m.start()) + 1)
    return out


def tool_sources(repo, ends):
    """The tool's files ending in one of ends, as paths below TOOL_DIR,
    its layer folders (util/, engine/, report/, cli/) included."""
    top = os.path.join(repo, TOOL_DIR)
    out = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ('asan', 'tsan', 'cross')
                   and not d.startswith('.')]
        out += [os.path.relpath(os.path.join(root, f), top)
                for f in files if f.endswith(ends)]
    return sorted(out)


def tool_macros(repo):
    """The tool's string macros (#define NAME "value")."""
    macros = {}
    for rel in tool_sources(repo, ('.c', '.h')):
        with open(os.path.join(repo, TOOL_DIR, rel), encoding='utf-8') as f:
            for m in re.finditer(r'^#define\s+(\w+)\s+"([^"]*)"', f.read(), re.M):
                macros[m.group(1)] = m.group(2)
    return macros


HELP_OPT_RE = re.compile(r'^ {2,}(?:(-[A-Za-z0-9]),\s+)?(--[a-z][a-z0-9-]*)')
DOC_OPT_RE = re.compile(r'`(?:(-[A-Za-z0-9]),\s*)?(--[a-z][a-z0-9-]*)')


def help_texts(repo):
    """[(command, file, line, text)] of every --help text of the tool."""
    macros = tool_macros(repo)
    out = []
    for rel in tool_sources(repo, '.c'):
        for name, (text, line) in sorted(c_string_arrays(
                os.path.join(repo, TOOL_DIR, rel), macros).items()):
            m = re.match(r'Usage: kvbench(?: +(\S+))?', text)
            if not m:
                continue
            cmd = m.group(1) if m.group(1) and re.fullmatch(
                r'[a-z][a-z0-9-]*', m.group(1)) else TOP
            out.append((cmd, '%s/%s' % (TOOL_DIR, rel), line, text))
    return out


def help_options(text):
    """{long: short or None} of the option lines of a --help text."""
    opts = {}
    for line in text.split('\n'):
        m = HELP_OPT_RE.match(line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts


def doc_options(repo, problems):
    """{command: {long: (short, line)}} of the README's option tables."""
    out = defaultdict(dict)
    try:
        with open(os.path.join(repo, TOOL_DOC), encoding='utf-8') as f:
            lines = f.read().split('\n')
    except OSError as e:
        problems.append('%s: %s' % (TOOL_DOC, e.strerror))
        return out
    cmd, fence = None, False
    for n, line in enumerate(lines, 1):
        if line.startswith('```'):
            fence = not fence
        if fence:
            continue
        m = re.match(r'^## +(.*)$', line)
        if m:
            head = m.group(1).strip()
            k = re.match(r'kvbench +([a-z][a-z0-9-]*)\b', head)
            cmd = k.group(1) if k else TOP if head == 'Commands' else None
            continue
        if cmd is None or not line.startswith('|'):
            continue
        cells = line.split('|')
        if len(cells) < 3 or not cells[1].strip().startswith('`-'):
            continue
        for o in DOC_OPT_RE.finditer(cells[1]):
            out[cmd][o.group(2)] = (o.group(1), '%s:%d' % (TOOL_DOC, n))
    return out


def getopt_tables(path):
    """The long option names of the getopt_long() tables of a C file, and
    the short option letters of its getopt_long() calls."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    longs = set(re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,\s*'
                           r'(?:no|required|optional)_argument', text))
    shorts = set()
    for m in re.finditer(r'getopt_long\s*\([^,]+,[^,]+,\s*"([^"]*)"', text):
        shorts.update('-' + c for c in m.group(1) if c.isalnum())
    return longs, shorts


def check_cli(repo, problems):
    """The --help texts against the README and the getopt tables."""
    helps = help_texts(repo)
    docs = doc_options(repo, problems)
    if not helps:
        problems.append('%s/*.c: no --help text ("Usage: kvbench ...") found'
                        % TOOL_DIR)
        return 0
    letters = defaultdict(set)
    by_file = defaultdict(lambda: [set(), set()])
    seen = set()
    for cmd, rel, line, text in helps:
        where = '%s:%d' % (rel, line)
        name = 'kvbench' + ('' if cmd == TOP else ' ' + cmd)
        opts = help_options(text)
        seen.add(cmd)
        doc = docs.get(cmd, {})
        section = 'the "## %s" section of %s' % (
            'Commands' if cmd == TOP else 'kvbench ' + cmd, TOOL_DOC)
        for o in sorted(set(opts) - set(doc)):
            problems.append('%s: %s --help lists %s, %s does not document it'
                            % (where, name, o, section))
        for o in sorted(set(doc) - set(opts)):
            problems.append('%s: documents %s for %s, which its --help (%s) '
                            'does not list' % (doc[o][1], o, name, where))
        for o in sorted(set(opts) & set(doc)):
            if opts[o] != doc[o][0]:
                problems.append('%s: %s %s is "%s" in --help (%s), "%s" here'
                                % (doc[o][1], name, o,
                                   ', '.join(filter(None, (opts[o], o))),
                                   where,
                                   ', '.join(filter(None, (doc[o][0], o)))))
        for o, short in opts.items():
            if short:
                letters[short].add((o, name))
            by_file[rel][0].add(o)
            if short:
                by_file[rel][1].add(short)
    for cmd in sorted(set(docs) - seen):
        problems.append('%s: an option table for "kvbench %s", a command '
                        'with no --help text' %
                        (min(w for _, w in docs[cmd].values()), cmd))
    for short, uses in sorted(letters.items()):
        if len({o for o, _ in uses}) > 1:
            problems.append('%s means %s: one meaning per letter' % (
                short, ', '.join('%s in %s' % (o, n) for o, n in sorted(uses))))
    for rel, (hopts, hshorts) in sorted(by_file.items()):
        longs, shorts = getopt_tables(os.path.join(repo, rel))
        if not longs:
            continue
        for o in sorted({'--' + x for x in longs} - hopts):
            problems.append('%s: getopt_long() takes %s, its --help does '
                            'not list it' % (rel, o))
        for o in sorted(hopts - {'--' + x for x in longs}):
            problems.append('%s: --help lists %s, getopt_long() does not '
                            'take it' % (rel, o))
        for o in sorted(hshorts - shorts):
            problems.append('%s: --help lists %s, the short options of '
                            'getopt_long() do not have it' % (rel, o))
        for o in sorted(shorts - hshorts):
            problems.append('%s: getopt_long() takes %s, its --help does '
                            'not list it' % (rel, o))
    return sum(len(help_options(t)) for _, _, _, t in helps)


def man_section(cmd):
    """The section of the man page that lists a command's options: OPTIONS
    for the global ones, "BENCH OPTIONS" for kvbench bench, and so on. A
    new command with a --help is one more section, a new option one more
    entry of an option list: no table here to keep up."""
    return 'OPTIONS' if cmd == TOP else '%s OPTIONS' % cmd.upper()


def man_options(repo, problems):
    """{section title: {long: (short, line)}} of the option lists of the
    man page's sections (an option list entry: "-b LIST, --backends LIST")."""
    out = {}
    path = os.path.join(repo, MAN_DOC)
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except OSError as e:
        problems.append('%s: %s' % (MAN_DOC, e.strerror))
        return out
    settings = {'report_level': 5, 'halt_level': 5,
                'file_insertion_enabled': False, 'raw_enabled': False}
    doc = docutils.core.publish_doctree(text, source_path=path,
                                        settings_overrides=settings)
    for sec in doc.traverse(docutils.nodes.section):
        title = sec[0].astext().strip()
        opts = out.setdefault(title, {})
        for group in sec.traverse(docutils.nodes.option_group):
            up = group.parent
            while not isinstance(up, docutils.nodes.section):
                up = up.parent
            if up is not sec:       # a subsection's: listed under its title
                continue
            names = [o.astext() for o in group.traverse(docutils.nodes.option_string)]
            longs = [x for x in names if x.startswith('--')]
            shorts = [x for x in names if not x.startswith('--')]
            line = group.parent.line or sec.line or 0
            for lo in longs:
                opts[lo] = (shorts[0] if shorts else None, '%s:%d' % (MAN_DOC, line))
    return out


def check_man(repo, problems):
    """Each --help against its section of the man page, both ways, with the
    same short letter. Returns how many options the man page lists."""
    man = man_options(repo, problems)
    if not man:
        return 0
    for cmd, rel, line, text in help_texts(repo):
        where = '%s:%d' % (rel, line)
        name = 'kvbench' + ('' if cmd == TOP else ' ' + cmd)
        title = man_section(cmd)
        opts = help_options(text)
        if title not in man:
            problems.append('%s: %s --help lists %d options; %s has no "%s" '
                            'section to list them' % (where, name, len(opts),
                                                      MAN_DOC, title))
            continue
        doc = man[title]
        for o in sorted(set(opts) - set(doc)):
            problems.append('%s: %s --help lists %s, the "%s" section of %s '
                            'does not' % (where, name, o, title, MAN_DOC))
        for o in sorted(set(doc) - set(opts)):
            problems.append('%s: the man page lists %s for %s, which its '
                            '--help (%s) does not' % (doc[o][1], o, name, where))
        for o in sorted(set(opts) & set(doc)):
            if opts[o] != doc[o][0]:
                problems.append('%s: %s %s is "%s" in --help (%s), "%s" in the '
                                'man page' % (doc[o][1], name, o,
                                              ', '.join(filter(None, (opts[o], o))),
                                              where,
                                              ', '.join(filter(None, (doc[o][0], o)))))
    return sum(len(v) for v in man.values())


def check_backends(repo, problems):
    """Every backend and target is named in bench --help and the README's
    --backends row."""
    names = set()
    for src in module_sources(repo):
        for m in re.finditer(r'\.name\s*=\s*"([a-z][a-z0-9-]*)"',
                             open(os.path.join(repo, src.rel),
                                  encoding='utf-8').read()):
            if m.group(1) != 'kvbench':
                names.add(m.group(1))
    for rel in tool_sources(repo, '.c'):
        with open(os.path.join(repo, TOOL_DIR, rel), encoding='utf-8') as f:
            names.update(re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,\s*&?kvb_[a-z_]+_ops\s*\}',
                                    f.read()))
    bench = [(rel, line, t) for cmd, rel, line, t in help_texts(repo)
             if cmd == 'bench']
    row = None
    try:
        with open(os.path.join(repo, TOOL_DOC), encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                if line.startswith('|') and '--backends' in line.split('|')[1]:
                    row = (n, line)
                    break
    except OSError:
        pass
    if row is None:
        problems.append('%s: no option table row for --backends' % TOOL_DOC)
    for name in sorted(names):
        word = r'(?<![\w-])%s(?![\w-])' % re.escape(name)
        if row and not re.search(r'`%s`' % re.escape(name), row[1]):
            problems.append('%s:%d: the --backends row does not name the '
                            'backend %s' % (TOOL_DOC, row[0], name))
        for rel, line, text in bench:
            if not re.search(word, text):
                problems.append('%s:%d: bench --help does not name the '
                                'backend %s' % (rel, line, name))
    return names


def self_test():
    """Break a copy of the repository's CLI docs and code in known ways;
    the checker must find each."""
    repo = os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    cases = [
        ('an undocumented option', '%s/cli/bench.c' % TOOL_DIR,
         '"  -q, --quiet ', '"      --frobnicate      undocumented\\n"\n\t"  -q, --quiet ',
         'bench --help lists --frobnicate'),
        ('a documented option that does not exist', TOOL_DOC,
         '| `--dry-run` |', '| `--no-such-option` | nothing |\n| `--dry-run` |',
         'documents --no-such-option for kvbench bench'),
        ('a short letter that differs', TOOL_DOC,
         '| `-k, --keys N` |', '| `-K, --keys N` |',
         '--keys is "-k, --keys" in --help'),
        ('an option getopt_long() does not take', '%s/main.c' % TOOL_DIR,
         '{ "buffer-size", required_argument', '{ "buffer-sz", required_argument',
         'getopt_long() does not take it'),
        ('a backend left out', TOOL_DOC, '`kthread-percpu`', '`kthread_percpu`',
         'does not name the backend kthread-percpu'),
        ('a bench option the man page leaves out', MAN_DOC,
         '--keep-hash-bits\n    Leave', '--keep-hash-bit\n    Leave',
         'bench --help lists --keep-hash-bits, the "BENCH OPTIONS" section'),
        ('an option the man page lists that --help does not', MAN_DOC,
         '--alpha A\n', '--beta B\n    Nothing.\n\n--alpha A\n',
         'the man page lists --beta for kvbench compare'),
        ('a short letter that differs in the man page', MAN_DOC,
         '-k N, --keys N', '-K N, --keys N',
         '--keys is "-k, --keys" in --help'),
        ('a command without its man page section', MAN_DOC,
         'STATS OPTIONS\n=============', 'STATISTICS\n==========',
         'has no "STATS OPTIONS" section'),
        ('a letter with two meanings', '%s/main.c' % TOOL_DIR,
         ('"      --buffer-size N ', '"+d:hV"'), ('"  -b, --buffer-size N ', '"+d:hVb:"'),
         '-b means --backends in kvbench bench, --buffer-size in kvbench'),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for sub in ('module', 'Documentation', TOOL_DIR, 'tools/lint'):
            shutil.copytree(os.path.join(repo, sub), os.path.join(tmp, sub),
                            ignore=shutil.ignore_patterns('*.o', '*.ko', 'asan',
                                                          'tsan', '.*'))
        clean = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                               capture_output=True, text=True, check=False)
        ok = clean.returncode == 0
        print('%s 1 - the repository as it is passes' % ('ok' if ok else 'not ok'))
        if not ok:
            print(''.join('# ' + l + '\n' for l in clean.stdout.splitlines()), end='')
            failed += 1
        for i, (what, rel, old, new, expect) in enumerate(cases, 2):
            path = os.path.join(tmp, rel)
            with open(path, encoding='utf-8') as f:
                orig = f.read()
            olds, news = ((old,), (new,)) if isinstance(old, str) else (old, new)
            broken = orig
            for o, n in zip(olds, news):
                broken = broken.replace(o, n, 1)
            if any(o not in orig for o in olds):
                print('not ok %d - %s: "%s" not found in %s' % (i, what, olds, rel))
                failed += 1
                continue
            with open(path, 'w', encoding='utf-8') as f:
                f.write(broken)
            r = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                               capture_output=True, text=True, check=False)
            with open(path, 'w', encoding='utf-8') as f:
                f.write(orig)
            ok = r.returncode == 1 and expect in r.stdout
            print('%s %d - %s is found' % ('ok' if ok else 'not ok', i, what))
            if not ok:
                print(''.join('# ' + l + '\n' for l in r.stdout.splitlines()), end='')
                failed += 1
    print('1..%d' % (len(cases) + 1))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
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
    nopts = check_cli(repo, problems)
    backends = check_backends(repo, problems)
    nman = check_man(repo, problems)
    print('cli: %d options in %d --help texts, %d backends and targets '
          '(%s), against %s' % (nopts, len(help_texts(repo)), len(backends),
                                ' '.join(sorted(backends)), TOOL_DOC))
    print('man: %d options in the option lists of %s' % (nman, MAN_DOC))
    for n in notes:
        print('note: ' + n)
    for p in problems:
        print('MISMATCH: ' + p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
