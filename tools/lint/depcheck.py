#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every external command the repository's scripts call is in
tools/deps.txt, the one list of what setup installs (gate "deps" of lint.sh).

Usage: depcheck.py [--busybox APPLETS] ROOT FILE...

FILEs (relative to ROOT) are shell scripts and Makefiles. In each, the words
in command position are found: the first word of a simple command (after
variable assignments), after | || && ; & ( and the keywords that start a
command (if then else elif while until do ! {), inside $( ), ` `, <( ) and
>( ), and the command that exec, command, env, nice, nohup, timeout, xargs
and flock run; the strings that trap, sh -c and bash -c run are read as
scripts too, and so are the command substitutions of unquoted here-documents.
A Makefile counts by its recipe lines and its $(shell ...) calls, with make's
variables taken as expansions.

Not commands: shell builtins and keywords, the functions the same file
defines (or a kselftest library it sources, SOURCED_LIBS, or a file of its
own directory that it sources, such as selftests/kvbench/lib.sh), words
with an expansion ("$VM", $(CC)) and relative paths
(./kvbench, tools/...): they are the repository's own. An absolute path
(/bin/busybox) counts as its last component. A command run through a
function of ours (check.sh's `build NAME make ...`) is not seen.

Host and guest: the scripts the busybox test VM runs (GUEST below, every
here-document that starts with "#!/bin/sh", and the code that check.sh
writes for the guest, GUEST_STRINGS) may call only commands whose WHERE
column has "guest"; with --busybox, a file holding `busybox --list`, those
must also be busybox applets, or be put into the guest otherwise
(NOT_BUSYBOX). Every other file runs on the host: its commands need a line
with a group besides "guest".

Prints one line per problem ("FILE:LINE: ...") and a summary; exits 1 when
there is a problem, 0 otherwise.
"""

import fnmatch
import os
import re
import sys

DEPS = 'tools/deps.txt'
GROUPS = ('base', 'vm', 'build', 'lint', 'dkms', 'debug', 'bench', 'profile',
          'arm64', 'guest')

# Scripts that run inside the VM (or, with NATIVE=1, on a kernel that can
# load the module).
GUEST = ('tools/vm/guest-init', 'tools/kvbench/smoke.sh',
         'selftests/kvbench/*.sh')

# Host code that writes guest code: the single-quoted strings of these
# arrays and functions are guest shell code (read as printf formats).
GUEST_STRINGS = {
    'tools/vm/check.sh': ('STOCK_SUITES', 'DEBUG_SUITES', 'KSFT_SUITES',
                          'write_driver', 'write_ksft_env'),
}

# Guest commands that are not busybox applets: kvbench-vm puts bash into
# the base initramfs.
NOT_BUSYBOX = {'bash'}

# Libraries of the kselftest framework that scripts source from a kernel
# tree (they are not copied here): the functions each defines, as in Linux
# 6.12. A script that names the library and sources a file may call them.
SOURCED_LIBS = {
    'ktap_helpers.sh': set('''
        ktap_print_header ktap_print_msg ktap_set_plan ktap_skip_all
        __ktap_test ktap_test_pass ktap_test_skip ktap_test_fail
        ktap_test_result ktap_exit_fail_msg ktap_finished
        ktap_print_totals'''.split()),
}
SOURCE_CMD = re.compile(r'(?:^|[;&|(]|\bthen|\bdo)\s*(?:\.|source)\s+\S', re.M)
# The file a source command names, e.g. lib.sh of . "$dir/lib.sh".
SOURCED_FILE = re.compile(
    r'(?:^|[;&|(]|\bthen|\bdo)\s*(?:\.|source)\s+"?(?:[^"\s;]*/)?([^"/\s;]+)"?',
    re.M)

BUILTINS = set('''
    : . [ alias bg bind break builtin caller cd command compgen complete
    compopt continue declare dirs disown echo enable eval exec exit export
    false fc fg getopts hash help history jobs kill let local logout mapfile
    popd printf pushd pwd read readarray readonly return set shift shopt
    source suspend test times trap true type typeset ulimit umask unalias
    unset wait'''.split())
# Keywords after which a command follows, and those after which none does
# (up to the next separator).
KW_START = {'if', 'then', 'else', 'elif', 'while', 'until', 'do', '!', '{',
            'time'}
KW_OTHER = {'fi', 'done', '}', 'esac', 'for', 'select', 'in', '[[', 'case'}

ASSIGN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=')
REDIR = re.compile(r'(\d+|\{[A-Za-z_]\w*\})?(<<<|<<-|<<|>>|<>|<&|>&|>\||'
                   r'&>>|&>|<(?!\()|>(?!\())')
PARAM = re.compile(r'\$([A-Za-z_]\w*|[@#?$!*0-9-])?')
SHEBANG_SH = re.compile(r'#!\s*/bin/(ba|da)?sh\b')
PARENS = re.compile(r'\s*\(\s*\)')
ESAC = re.compile(r'esac\b')


class Word:
    """A shell word: its text with quotes removed, whether it has an
    expansion, and the inside of its quotes when it is one quoted string."""

    def __init__(self, start):
        self.start = self.end = start
        self.text = ''
        self.exp = False
        self.quoted = None


class Script:
    """Finds the commands called by one piece of shell code. calls gets
    (name, line) for every word in command position, funcs the names of the
    functions it defines, guest the guest scripts in its here-documents."""

    def __init__(self, text, line0=1, parent=None):
        self.s = text
        self.n = len(text)
        self.i = 0
        self.line0 = line0
        self.calls = parent.calls if parent else []
        self.funcs = parent.funcs if parent else set()
        self.guest = parent.guest if parent else []
        self.heredocs = []

    def line(self, off):
        return self.line0 + self.s.count('\n', 0, off)

    def sub(self, text, off):
        """Parse TEXT, found at offset OFF, into the same results."""
        Script(text, self.line(off), self).parse()

    def parse(self):
        self.parse_list(None)
        return self

    # Lexing ------------------------------------------------------------

    def blank(self, newlines):
        """Skip blanks and line continuations; with NEWLINES, also
        newlines (reading pending here-documents) and comments."""
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in ' \t':
                self.i += 1
            elif s.startswith('\\\n', self.i):
                self.i += 2
            elif newlines and c == '\n':
                self.newline()
            elif newlines and c == '#':
                self.comment()
            else:
                break

    def comment(self):
        j = self.s.find('\n', self.i)
        self.i = self.n if j < 0 else j

    def newline(self):
        """Consume a newline, then the here-documents it starts."""
        self.i += 1
        pending, self.heredocs = self.heredocs, []
        for delim, quoted, strip in pending:
            self.heredoc(delim, quoted, strip)

    def heredoc(self, delim, quoted, strip):
        """Read the here-document at self.i, up to its line DELIM (leading
        tabs stripped with STRIP): a guest script when it starts with a sh
        shebang, else data whose expansions, unless QUOTED, are code."""
        start = self.i
        end = self.n
        pos = start
        while pos < self.n:
            j = self.s.find('\n', pos)
            j = self.n if j < 0 else j
            line = self.s[pos:j]
            if (line.lstrip('\t') if strip else line) == delim:
                end = pos
                self.i = min(j + 1, self.n)
                break
            pos = j + 1
        else:
            self.i = self.n
        body = self.s[start:end]
        if SHEBANG_SH.match(body):
            self.guest.append((body, self.line(start)))
        elif not quoted:
            save = self.i
            self.i = start
            while self.i < end:
                c = self.s[self.i]
                if c == '\\':
                    self.i += 2
                elif c == '$':
                    self.dollar(True)
                elif c == '`':
                    self.backtick()
                else:
                    self.i += 1
            self.i = save

    def word(self):
        """Lex one word at self.i."""
        s = self.s
        w = Word(self.i)
        quotes = []
        while self.i < self.n:
            c = s[self.i]
            if c in '<>' and s.startswith('(', self.i + 1):
                self.i += 2
                self.parse_list(')')
                w.exp = True
            elif c in ' \t\n;&|()<>':
                break
            elif c == '\\':
                if not s.startswith('\n', self.i + 1):
                    w.text += s[self.i + 1:self.i + 2]
                self.i += 2
            elif c == "'":
                j = s.find("'", self.i + 1)
                j = self.n if j < 0 else j
                quotes.append((self.i, j + 1, s[self.i + 1:j]))
                w.text += s[self.i + 1:j]
                self.i = j + 1
            elif c == '"':
                start = self.i
                self.i += 1
                text, exp = self.dquote()
                quotes.append((start, self.i, s[start + 1:self.i - 1]))
                w.text += text
                w.exp |= exp
            elif c == '$':
                self.dollar(False)
                w.exp = True
            elif c == '`':
                self.backtick()
                w.exp = True
            else:
                w.text += c
                self.i += 1
                if c == '=' and s.startswith('(', self.i) and \
                        ASSIGN.fullmatch(w.text):
                    self.i += 1
                    self.array()
        w.end = self.i
        if len(quotes) == 1 and quotes[0][:2] == (w.start, w.end):
            w.quoted = quotes[0][2]
        return w

    def raw(self, w):
        """Word W as written."""
        return self.s[w.start:w.end]

    def dquote(self):
        """Lex the inside of "...", after the opening quote."""
        s = self.s
        text = ''
        exp = False
        while self.i < self.n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == '\\':
                text += s[self.i + 1:self.i + 2]
                self.i += 2
            elif c == '$':
                self.dollar(True)
                exp = True
            elif c == '`':
                self.backtick()
                exp = True
            else:
                text += c
                self.i += 1
        return text, exp

    def dollar(self, in_dq):
        """Skip an expansion at self.i, parsing the commands it runs."""
        s = self.s
        if s.startswith('$((', self.i):
            self.i = self.arith(self.i + 1)
        elif s.startswith('$(', self.i):
            self.i += 2
            self.parse_list(')')
        elif s.startswith('${', self.i):
            self.i += 2
            self.braces(in_dq)
        elif s.startswith("$'", self.i) and not in_dq:
            self.i += 2
            while self.i < self.n and s[self.i] != "'":
                self.i += 2 if s[self.i] == '\\' else 1
            self.i += 1
        else:
            self.i = PARAM.match(s, self.i).end()

    def braces(self, in_dq):
        """Skip the inside of ${...}, after the opening brace."""
        s = self.s
        depth = 1
        while self.i < self.n:
            c = s[self.i]
            if c == '\\':
                self.i += 2
            elif c == "'" and not in_dq:
                j = s.find("'", self.i + 1)
                self.i = self.n if j < 0 else j + 1
            elif c == '"':
                self.i += 1
                self.dquote()
            elif c == '$':
                self.dollar(in_dq)
            elif c == '`':
                self.backtick()
            else:
                self.i += 1
                if c == '{':
                    depth += 1
                elif c == '}':
                    depth -= 1
                    if not depth:
                        return

    def arith(self, pos):
        """The end of the $(( )) or (( )) whose "((" is at POS."""
        depth = 0
        while pos < self.n:
            c = self.s[pos]
            if c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
                if not depth:
                    return pos + 1
            pos += 1
        return pos

    def backtick(self):
        j = self.i + 1
        while j < self.n and self.s[j] != '`':
            j += 2 if self.s[j] == '\\' else 1
        self.sub(self.s[self.i + 1:j], self.i + 1)
        self.i = j + 1

    def array(self):
        """Skip the elements of NAME=( ... ), after the parenthesis."""
        while True:
            self.blank(True)
            if self.i >= self.n:
                return
            if self.s[self.i] == ')':
                self.i += 1
                return
            if self.s[self.i] in ';&|(<>':
                self.i += 1
                continue
            self.word()

    def skip_test(self, end):
        """Skip to the word END ("]]" of [[ ... ]]), parsing expansions."""
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if s.startswith(end, self.i) and s[self.i - 1] in ' \t\n':
                self.i += len(end)
                return
            if c == '\n':
                self.newline()
            elif c in ' \t;&|()<>':
                self.i += 1
            else:
                self.word()

    # Parsing -----------------------------------------------------------

    def parse_list(self, end):
        """Parse commands up to END: ")" (consumed), "case" (stops before
        ";;" or at "esac") or None (the end of the text). Returns what
        ended it."""
        s = self.s
        while True:
            self.blank(True)
            if self.i >= self.n:
                return None
            if end == ')' and s[self.i] == ')':
                self.i += 1
                return ')'
            if end == 'case' and s.startswith((';;', ';&'), self.i):
                self.i += 3 if s.startswith(';;&', self.i) else 2
                return ';;'
            if s[self.i] in ';&|)':
                self.i += 1
                continue
            if self.command(end) == 'esac':
                return 'esac'

    def command(self, end):
        """Parse one simple command (or the start of a compound one)."""
        s = self.s
        words = []
        while self.i < self.n:
            self.blank(False)
            if self.i >= self.n:
                break
            c = s[self.i]
            if c == '\n' or c == ')':
                break
            if c == '#':
                self.comment()
                break
            m = REDIR.match(s, self.i)
            if m:
                self.i = m.end()
                self.blank(False)
                target = self.word()
                if m.group(2) in ('<<', '<<-'):
                    self.heredocs.append((target.text,
                                          target.text != self.raw(target),
                                          m.group(2) == '<<-'))
                continue
            if c in ';&|':
                if end == 'case' and s.startswith((';;', ';&'), self.i):
                    break
                self.i += 2 if s.startswith(('&&', '||', '|&'), self.i) else 1
                break
            if c == '(':
                if s.startswith('((', self.i) and (not words or
                                                   words[0].text == 'for'):
                    self.i = self.arith(self.i)
                    marker = Word(self.i)
                    marker.exp = True
                    words.append(marker)
                    continue
                m = PARENS.match(s, self.i)
                if m and len(words) == 1:
                    self.funcs.add(words[0].text)
                    self.i = m.end()
                    return None
                self.i += 1
                self.parse_list(')')
                marker = Word(self.i)
                marker.exp = True
                words.append(marker)
                continue
            w = self.word()
            if not words and ASSIGN.match(self.raw(w)):
                continue
            if words or w.exp or w.text != self.raw(w):
                words.append(w)
                continue
            if w.text in KW_START:
                continue
            if w.text == 'esac' and end == 'case':
                return 'esac'
            words.append(w)
            if w.text == '[[':
                self.skip_test(']]')
            elif w.text == 'case':
                self.blank(False)
                self.word()
                self.blank(False)
                self.word()
                self.case_body()
            elif w.text == 'function':
                self.blank(False)
                self.funcs.add(self.word().text)
                m = PARENS.match(s, self.i)
                if m:
                    self.i = m.end()
                return None
        self.simple(words)
        return None

    def case_body(self):
        """Parse the items of a case, after its "in", up to its "esac"."""
        s = self.s
        while True:
            self.blank(True)
            if self.i >= self.n:
                return
            if ESAC.match(s, self.i):
                self.i += 4
                return
            if s[self.i] == '(':
                self.i += 1
            while self.i < self.n and s[self.i] != ')':
                if s[self.i] in ' \t\n|':
                    self.i += 1
                else:
                    self.word()
            self.i += 1
            if self.parse_list('case') == 'esac':
                return

    def simple(self, words):
        """Record the command that simple command WORDS runs."""
        k = 0
        while k < len(words):
            w = words[k]
            name = w.text
            if w.exp or name in KW_OTHER:
                return
            if name == 'command':
                k += 1
                while k < len(words) and words[k].text.startswith('-'):
                    if words[k].text in ('-v', '-V'):
                        return
                    k += 1
                continue
            if name == 'exec':
                k = skip_opts(words, k + 1, '-a')
                continue
            self.calls.append((name, self.line(w.start)))
            if name == 'env':
                k = skip_opts(words, k + 1, '-u')
                while k < len(words) and ASSIGN.match(words[k].text):
                    k += 1
            elif name in ('nice', 'nohup', 'setsid'):
                k = skip_opts(words, k + 1, '-n')
            elif name == 'timeout':
                k = skip_opts(words, k + 1, '-k', '-s') + 1
            elif name == 'chrt':
                # chrt [--idle|--fifo|...] PRIORITY COMMAND
                k = skip_opts(words, k + 1) + 1
            elif name == 'xargs':
                k = skip_opts(words, k + 1, '-a', '-d', '-E', '-I', '-L',
                              '-n', '-P', '-s')
            elif name == 'flock':
                k = skip_opts(words, k + 1, '-w', '-E') + 1
                if k < len(words) and words[k].text == '-c':
                    self.code(words, k + 1)
                    return
            elif name in ('sh', 'bash'):
                k = skip_opts(words, k + 1)
                if '-c' in (x.text for x in words[k - 1:k]):
                    self.code(words, k)
                return
            elif name == 'trap':
                self.code(words, k + 1)
                return
            else:
                return

    def code(self, words, k):
        """Parse words[k], when it is one quoted string, as a script."""
        if k < len(words) and words[k].quoted is not None:
            self.sub(words[k].quoted, words[k].start)


def skip_opts(words, k, *with_arg):
    """The index of the first word from K on that is not an option (nor
    the argument of an option in WITH_ARG)."""
    while k < len(words) and words[k].text.startswith('-') and \
            words[k].text != '-':
        k += 2 if words[k].text in with_arg else 1
    return k


def make_vars(text):
    """TEXT with make's variable references turned into "$MAKE_VAR"."""
    text = text.replace('$$', '\x00')
    while True:
        new = re.sub(r'\$(\([^()]*\)|\{[^{}]*\}|[^(){}])', '\x01', text)
        if new == text:
            return new.replace('\x01', '$MAKE_VAR').replace('\x00', '$')
        text = new


def makefile_code(text):
    """The shell code of a Makefile, as (code, line): its recipe lines and
    the commands of its $(shell ...) calls."""
    out = []
    lines = text.split('\n')
    in_rule = in_define = False
    num = 0
    while num < len(lines):
        start = num
        line = lines[num]
        while line.endswith('\\') and num + 1 < len(lines):
            num += 1
            line = line[:-1] + ' ' + lines[num].lstrip('\t')
        num += 1
        for m in re.finditer(r'\$\(shell ((?:[^()]|\([^()]*\))*)\)', line):
            out.append((make_vars(m.group(1)), start + 1))
        word = line.split(None, 1)[0] if line.strip() else ''
        if word == 'define':
            in_define = True
        elif word == 'endef':
            in_define = False
        if line.startswith('\t') and (in_rule or in_define):
            cmd = line.lstrip('\t').lstrip('@+-')
            if in_define:
                cmd = cmd.replace('$$', '$')
            out.append((make_vars(cmd), start + 1))
        elif line.strip() and not line.startswith('#'):
            in_rule = bool(re.match(r'[^=#]*[^:=]:([^=]|$)', line))
    return out


def printf_unescape(text):
    """TEXT as printf prints it, each conversion (%s, %d) printing nothing."""
    def one(m):
        if m.group(1) is not None:
            return {'n': '\n', 't': '\t', '\\': '\\'}.get(m.group(1), '')
        return '%' if m.group(2) == '%' else ''
    return re.sub(r'\\(.)|%(.)', one, text)


def guest_strings(text, names):
    """The single-quoted strings of the arrays and functions NAMES in TEXT,
    as (code, line); a name that TEXT does not define as (None, name)."""
    out = []
    for name in names:
        m = re.search(r'^%s(=\(|\(\) \{)\n(.*?)^[)}]$' % re.escape(name),
                      text, re.M | re.S)
        if not m:
            out.append((None, name))
            continue
        body, pos = m.group(2), m.start(2)
        i = 0
        while i < len(body):
            c = body[i]
            if c == '\\':
                i += 2
            elif c == '#' and (i == 0 or body[i - 1] in ' \t\n'):
                j = body.find('\n', i)
                i = len(body) if j < 0 else j
            elif c == '"':
                i += 1
                while i < len(body) and body[i] != '"':
                    i += 2 if body[i] == '\\' else 1
                i += 1
            elif c == "'":
                j = body.find("'", i + 1)
                j = len(body) if j < 0 else j
                out.append((printf_unescape(body[i + 1:j]),
                            text.count('\n', 0, pos + i) + 1))
                i = j + 1
            else:
                i += 1
    return out


def read_deps(path, problems):
    """COMMAND -> set of WHERE groups, from tools/deps.txt."""
    deps = {}
    with open(path) as f:
        for num, line in enumerate(f, 1):
            fields = line.split('#', 1)[0].split()
            if not fields:
                continue
            where = fields[2].split(',') if len(fields) == 3 else []
            bad = [g for g in where if g not in GROUPS]
            if len(fields) != 3 or bad or \
                    not re.fullmatch(r'[a-z0-9][a-z0-9+.-]+', fields[1]):
                problems.append('%s:%d: not "COMMAND PACKAGE WHERE", WHERE '
                                'of %s: %s' % (DEPS, num, ','.join(GROUPS),
                                               line.strip()))
                continue
            if fields[0] == '-':
                continue
            if fields[0] in deps:
                problems.append('%s:%d: %s is listed twice' %
                                (DEPS, num, fields[0]))
            deps[fields[0]] = set(where)
    return deps


def main(argv):
    applets = None
    if len(argv) > 2 and argv[1] == '--busybox':
        with open(argv[2]) as f:
            applets = set(f.read().split())
        argv = argv[2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    root, files = argv[1], argv[2:]
    problems = []
    deps = read_deps(os.path.join(root, DEPS), problems)
    used = set()
    counts = {'host': set(), 'guest': set()}

    def check(path, calls, funcs, guest):
        kind = 'guest' if guest else 'host'
        for name, line in calls:
            if name in BUILTINS or name in funcs or \
                    ('/' in name and not name.startswith('/')):
                continue
            name = name.rsplit('/', 1)[-1]
            where = deps.get(name)
            counts[kind].add(name)
            used.add(name)
            if where is None:
                why = 'is not in ' + DEPS
            elif guest and 'guest' not in where:
                why = 'runs in the guest, but its WHERE has no "guest"'
            elif guest and applets is not None and name not in applets and \
                    name not in NOT_BUSYBOX:
                why = 'runs in the guest, but busybox has no such applet'
            elif not guest and not where - {'guest'}:
                why = 'runs on the host, but its WHERE is only "guest"'
            else:
                continue
            problems.append('%s:%d: %s %s' % (path, line, name, why))

    def check_script(path, text, line0, guest):
        sc = Script(text, line0).parse()
        funcs = set(sc.funcs)
        if SOURCE_CMD.search(text):
            for lib, names in SOURCED_LIBS.items():
                if lib in text:
                    funcs |= names
            # A library of the script's own directory: its functions.
            for name in SOURCED_FILE.findall(text):
                lib = os.path.join(root, os.path.dirname(path), name)
                if name not in SOURCED_LIBS and os.path.isfile(lib):
                    with open(lib) as f:
                        funcs |= Script(f.read()).parse().funcs
        check(path, sc.calls, funcs, guest)
        for body, line in sc.guest:
            check_script(path, body, line, True)

    for path in files:
        with open(os.path.join(root, path)) as f:
            text = f.read()
        if os.path.basename(path) == 'Makefile':
            top = Script('')
            for code, line in makefile_code(text):
                Script(code, line, top).parse()
            check(path, top.calls, top.funcs, False)
            continue
        guest = any(fnmatch.fnmatch(path, g) for g in GUEST)
        check_script(path, text, 1, guest)
        for code, line in guest_strings(text, GUEST_STRINGS.get(path, ())):
            if code is None:
                problems.append('%s: defines no %s (GUEST_STRINGS in %s)' %
                                (path, line, os.path.basename(argv[0])))
            else:
                sc = Script(code, line).parse()
                check(path, sc.calls, sc.funcs, True)

    for p in problems:
        print(p)
    unused = sorted(set(deps) - used)
    if unused:
        print('listed, called by no script (builds, the kselftest framework, '
              'C code): ' + ' '.join(unused))
    verdict = '%d problems' % len(problems) if problems else 'all in ' + DEPS
    if applets is not None:
        verdict += '; the guest ones checked against busybox --list'
    print('%d files: %d host and %d guest commands, %s' % (
        len(files), len(counts['host']), len(counts['guest']), verdict))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
