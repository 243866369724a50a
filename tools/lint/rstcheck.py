#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse reStructuredText files with plain docutils and report every
message of level WARNING or above (what `rst2html --halt=warning` stops at),
all of them rather than the first. Sphinx-only roles and directives
(:doc:, :ref:, toctree, kernel-doc) are unknown to docutils and so reported.

Usage: rstcheck.py FILE...    Exit 1 when any file has a message.
"""

import io
import sys

import docutils.core


def check(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    stream = io.StringIO()
    settings = {
        'report_level': 2,          # WARNING and above
        'halt_level': 5,            # never stop: list them all
        'warning_stream': stream,
        'file_insertion_enabled': False,
        'raw_enabled': False,
        'output_encoding': 'unicode',
    }
    try:
        docutils.core.publish_string(text, source_path=path,
                                     writer_name='html',
                                     settings_overrides=settings)
    except Exception as e:          # pylint: disable=broad-except
        stream.write('%s: cannot parse: %s\n' % (path, e))
    return [line for line in stream.getvalue().splitlines() if line.strip()]


def main():
    bad = 0
    for path in sys.argv[1:]:
        msgs = check(path)
        for m in msgs:
            print(m)
        bad += bool(msgs)
    print('%d files, %d with warnings' % (len(sys.argv) - 1, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
