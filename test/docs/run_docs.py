#!/usr/bin/env python3
"""Runs every fenced block of relayrt's docs (the convention: test/docs/README.md).

  run_docs.py --src REPO --build BUILD [--sanitize address,undefined]
              [--file PATH ...] [-j N] [-v]

Exit status 0 when every block of every file passes; otherwise each failure is
printed as FILE:LINE: what went wrong, with the block's output.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK_TIMEOUT_S = 60
FENCE_RE = re.compile(r'^( {0,3})(`{3,}|~{3,})(.*)$')
RUNNABLE = ('sh', 'c', 'relay')
KNOWN = RUNNABLE + ('output', 'text')


class Block:
    def __init__(self, path, line, info, body):
        self.path, self.line, self.info, self.body = path, line, info, body
        words = info.split()
        self.lang = words[0] if words else ''
        self.attrs = {}
        for w in words[1:]:
            if '=' in w:
                k, v = w.split('=', 1)
                self.attrs[k] = v
        m = re.search(r'\bnorun:\s*(.*)', info)
        self.norun = m.group(1).strip() if m else None
        if self.norun is None and re.search(r'\bnorun\b', info):
            self.norun = ''
        m = re.search(r'\bnosan:\s*(.*)', info)
        self.nosan = m.group(1).strip() if m else None
        if self.nosan is None and re.search(r'\bnosan\b', info):
            self.nosan = ''
        self.expected = None  # the output block that follows, if any

    def where(self):
        return '%s:%d' % (self.path, self.line)


def parse_blocks(rel_path, text):
    """Fenced blocks in order. An unterminated fence is an error."""
    blocks, errors = [], []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
        start = i + 1
        body = []
        i += 1
        closed = False
        while i < len(lines):
            c = re.match(r'^ {0,3}(' + re.escape(fence[0]) + '{' + str(len(fence)) + r',})\s*$',
                         lines[i])
            if c:
                closed = True
                break
            ln = lines[i]
            if indent and ln.startswith(indent):
                ln = ln[len(indent):]
            body.append(ln)
            i += 1
        i += 1
        if not closed:
            errors.append('%s:%d: unterminated fence' % (rel_path, start))
            break
        blocks.append(Block(rel_path, start, info, '\n'.join(body) + '\n'))
    return blocks, errors


def check_links(src, rel_path, text):
    """Relative links outside fenced blocks must name existing paths."""
    out, fenced = [], False
    base = os.path.dirname(os.path.join(src, rel_path))
    for n, ln in enumerate(text.split('\n'), 1):
        if FENCE_RE.match(ln):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in re.findall(r'\]\(([^)\s]+)\)', ln):
            if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                continue
            path = target.split('#', 1)[0]
            if path and not os.path.exists(os.path.join(base, path)):
                out.append('%s:%d: link to %s: no such file' % (rel_path, n, target))
    return out


SOURCE_DIRS = ('backend', 'frontend', 'include', 'interp', 'ir', 'jit', 'passes', 'runtime', 'tools')
PATH_RE = re.compile(r'(?<![\w./])((?:[A-Za-z0-9_.]+/)+[A-Za-z0-9_*]+\.(?:c|h|def))')
IDENT_RE = re.compile(r'\b(?:rt_\w+|LLVM\w+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b')


def check_names(src, block, cache):
    """`text check=names`: on each line, every path must exist, and every C
    name (rt_*, LLVM*, snake_case) must occur in the line's first path, or
    anywhere in the sources when the line names no path."""
    def words_of(paths):
        key = tuple(paths)
        if key not in cache:
            text = ''
            for p in paths:
                with open(p, encoding='utf-8', errors='replace') as f:
                    text += f.read() + '\n'
            cache[key] = set(re.findall(r'\w+', text))
        return cache[key]
    out = []
    for n, ln in enumerate(block.body.split('\n')):
        where = '%s:%d' % (block.path, block.line + 1 + n)
        ln = re.sub(r'"[^"]*"', '', ln)
        paths = PATH_RE.findall(ln)
        files = []
        for p in paths:
            found = sorted(glob.glob(os.path.join(src, p)))
            if not found:
                out.append('%s: %s: no such file' % (where, p))
            files.append(found)
        rest = re.sub(r'\b[\w*]+\.(?:c|h|def)\b', '', PATH_RE.sub('', ln))
        idents = IDENT_RE.findall(rest)
        if not idents:
            continue
        if paths:
            if not files[0]:
                continue
            words, scope = words_of(files[0]), paths[0]
        else:
            if 'all' not in cache:
                every = []
                for d in SOURCE_DIRS:
                    for root, _, names in os.walk(os.path.join(src, d)):
                        every += [os.path.join(root, x) for x in names
                                  if x.endswith(('.c', '.h', '.def'))]
                cache['all'] = words_of(sorted(every))
            words, scope = cache['all'], 'the sources'
        for ident in idents:
            if ident not in words:
                out.append('%s: %s does not occur in %s' % (where, ident, scope))
    return out


def match_output(expected, actual):
    """`...` alone on a line matches any lines; `[...]` matches text in a line."""
    def norm(s):
        ls = [ln.rstrip() for ln in s.split('\n')]
        while ls and ls[-1] == '':
            ls.pop()
        return ls
    exp, act = norm(expected), norm(actual)

    def line_re(e):
        return re.compile('^' + '.*'.join(re.escape(p) for p in e.split('[...]')) + '$')
    pats = [None if e == '...' else line_re(e) for e in exp]
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(pats):
            r = j == len(act)
        elif pats[i] is None:
            r = any(go(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and bool(pats[i].match(act[j])) and go(i + 1, j + 1)
        memo[key] = r
        return r
    return go(0, 0)


class Runner:
    def __init__(self, args):
        self.src = os.path.abspath(args.src)
        self.build = os.path.abspath(args.build)
        self.sanitize = [s for s in (args.sanitize or '').split(',') if s and s != 'none']
        self.verbose = args.verbose

    def env_for(self, work, bindir):
        env = dict(os.environ)
        path = [os.path.join(self.build, 'tools'), '/usr/bin', env.get('PATH', '')]
        if bindir:
            path.insert(0, bindir)
        env['PATH'] = ':'.join(path)
        env['RELAYRT_SRC'] = self.src
        env['RELAYRT_BUILD'] = self.build
        env['HOME'] = work
        # One fresh kernel cache for the whole run: the example CNN's kernels
        # are compiled once, not once per command.
        env['RELAYRT_CACHE_DIR'] = self.cache_dir
        env['PKG_CONFIG_PATH'] = os.path.join(self.build, 'meson-uninstalled')
        ld = env.get('LD_LIBRARY_PATH')
        env['LD_LIBRARY_PATH'] = self.build + (':' + ld if ld else '')
        for k in ('CC', 'CFLAGS', 'LDFLAGS', 'CPPFLAGS', 'MAKEFLAGS', 'MFLAGS'):
            env.pop(k, None)
        return env

    def make_work(self, work):
        for name in os.listdir(self.src):
            if name == '.git' or name.startswith('build'):
                continue
            os.symlink(os.path.join(self.src, name), os.path.join(work, name))
        os.symlink(self.build, os.path.join(work, 'build'))
        bindir = None
        if self.sanitize:
            # The library is instrumented: what links it must be too.
            bindir = os.path.join(work, '.docs-bin')
            os.mkdir(bindir)
            real_cc = shutil.which('cc', path='/usr/bin:/bin') or '/usr/bin/cc'
            wrapper = os.path.join(bindir, 'cc')
            with open(wrapper, 'w') as f:
                f.write('#!/bin/sh\nexec %s -fsanitize=%s "$@"\n' %
                        (real_cc, ','.join(self.sanitize)))
            os.chmod(wrapper, 0o755)
        return bindir

    def run_cmd(self, argv, work, env):
        try:
            p = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT_S)
            return p.returncode, p.stdout.decode('utf-8', 'replace')
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b'').decode('utf-8', 'replace')
            return None, out + '\n[timed out after %d s]' % BLOCK_TIMEOUT_S

    def run_block(self, b, idx, work, env):
        """Returns (rc, output, expected_rc) or raises ValueError for bad blocks."""
        want_rc = int(b.attrs.get('exit', '0'))
        if b.lang == 'sh':
            script = os.path.join(work, '.docs-block-%d.sh' % idx)
            with open(script, 'w') as f:
                f.write(b.body)
            rc, out = self.run_cmd(['bash', '-e', '-o', 'pipefail', script], work, env)
            return rc, out, want_rc
        if b.lang == 'c':
            lib = b.attrs.get('lib', 'relayrt')
            if lib not in ('relayrt', 'relayrt-runtime'):
                raise ValueError('lib=%s: expected relayrt or relayrt-runtime' % lib)
            src = os.path.join(work, '.docs-block-%d.c' % idx)
            exe = os.path.join(work, '.docs-block-%d' % idx)
            with open(src, 'w') as f:
                f.write(b.body)
            cmd = ('cc -std=c11 -Wall -Wextra -Werror -o %s %s $(pkg-config --cflags --libs %s)'
                   % (exe, src, lib))
            rc, out = self.run_cmd(['sh', '-c', cmd], work, env)
            if rc != 0:
                return rc, 'compiling the block failed:\n' + out, 0
            rc, out = self.run_cmd([exe], work, env)
            return rc, out, want_rc
        if b.lang == 'relay':
            src = os.path.join(work, '.docs-block-%d.relay' % idx)
            with open(src, 'w') as f:
                f.write(b.body)
            relayrt = os.path.join(self.build, 'tools', 'relayrt')
            rc, out = self.run_cmd([relayrt, 'build', os.path.basename(src), '--emit=relay',
                                    '--no-opt'], work, env)
            return rc, out, want_rc
        raise ValueError('not runnable')

    def run_file(self, rel_path):
        """Returns (failures, notes): lists of strings."""
        failures, notes = [], []
        with open(os.path.join(self.src, rel_path), encoding='utf-8') as f:
            text = f.read()
        blocks, errors = parse_blocks(rel_path, text)
        failures += errors
        failures += check_links(self.src, rel_path, text)
        # Check every block's kind; attach output blocks to their producer.
        last_runnable = None
        for b in blocks:
            if b.lang == 'output':
                if last_runnable is None or last_runnable.expected is not None:
                    failures.append('%s: output block without a runnable block before it'
                                    % b.where())
                else:
                    last_runnable.expected = b
                continue
            if 'file' in b.attrs:
                last_runnable = None
                continue
            if b.lang == '':
                failures.append('%s: fenced block without an info string (mark it `text` '
                                'if it is illustrative only; see test/docs/README.md)'
                                % b.where())
                continue
            if b.lang not in KNOWN:
                failures.append('%s: block `%s` is neither run nor marked: use sh, c, relay, '
                                'output, text, or file=NAME (test/docs/README.md)'
                                % (b.where(), b.info))
                continue
            if b.norun is not None:
                if not b.norun:
                    failures.append('%s: norun needs a reason (`norun: why`)' % b.where())
                else:
                    notes.append('%s: not run (norun: %s)' % (b.where(), b.norun))
                last_runnable = None
                continue
            last_runnable = b if b.lang in RUNNABLE else None
        cache = {}
        for b in blocks:
            if b.lang == 'text' and b.attrs.get('check') == 'names':
                failures += check_names(self.src, b, cache)
            elif 'check' in b.attrs:
                failures.append('%s: unknown check=%s (known: names)' % (b.where(), b.attrs['check']))
        # file= blocks must be used by a later block.
        for i, b in enumerate(blocks):
            name = b.attrs.get('file')
            if name is None:
                continue
            if '/' in name or name.startswith('.'):
                failures.append('%s: file=%s: a plain name in the work folder' % (b.where(), name))
            elif not any(name in later.body or name in later.info or
                         (name in ('Makefile', 'makefile') and re.search(r'\bmake\b', later.body))
                         for later in blocks[i + 1:] if later.lang != 'text'):
                failures.append('%s: file=%s is written but never used by a later block'
                                % (b.where(), name))
        if failures:
            return failures, notes
        work = tempfile.mkdtemp(prefix='relayrt-docs-')
        try:
            bindir = self.make_work(work)
            env = self.env_for(work, bindir)
            ran = 0
            for idx, b in enumerate(blocks):
                if 'file' in b.attrs:
                    with open(os.path.join(work, b.attrs['file']), 'w') as f:
                        f.write(b.body)
                    continue
                if b.lang not in RUNNABLE or b.norun is not None:
                    continue
                if b.nosan is not None and self.sanitize:
                    notes.append('%s: not run in this sanitizer build (nosan: %s)'
                                 % (b.where(), b.nosan))
                    continue
                try:
                    rc, out, want_rc = self.run_block(b, idx, work, env)
                except ValueError as e:
                    failures.append('%s: %s' % (b.where(), e))
                    break
                ran += 1
                if self.verbose:
                    sys.stdout.write('--- %s (%s): exit %s\n%s' % (b.where(), b.lang, rc, out))
                problem = None
                if rc != want_rc:
                    problem = 'exit status %s, expected %d' % (rc, want_rc)
                elif b.expected is not None and not match_output(b.expected.body, out):
                    problem = 'output differs from the output block at line %d' % b.expected.line
                if problem:
                    msg = '%s: %s block: %s\n--- block\n%s--- output\n%s' % (
                        b.where(), b.lang, problem, b.body, out)
                    if b.expected is not None:
                        msg += '\n--- expected\n' + b.expected.body
                    failures.append(msg)
                    break  # later blocks of the file may depend on this one
            notes.append('%s: %d blocks, %d run' % (rel_path, len(blocks), ran))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return failures, notes


def doc_files(src):
    files = ['README.md']
    files += sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, 'docs', '*.md')))
    files.append('examples/README.md')
    files += sorted(os.path.relpath(p, src)
                    for p in glob.glob(os.path.join(src, 'examples', '*', 'README.md')))
    return [f for f in files if os.path.exists(os.path.join(src, f))]


SELFTEST_CASES = [
    # (markdown, substring every failure list must contain; None = passes)
    ('```\nfoo\n```\n', 'without an info string'),
    ('```python\nprint(1)\n```\n', 'neither run nor marked'),
    ('```sh\necho hi\n```\n\n```output\nho\n```\n', 'output differs'),
    ('```sh\necho a; echo b; echo "x 12 y"\n```\n\n```output\n...\nx [...] y\n```\n', None),
    ('```sh\nfalse\n```\n', 'exit status 1, expected 0'),
    ('```sh exit=3\nexit 3\n```\n', None),
    ('```c file=x.c\nint main(void) { return 0; }\n```\n', 'never used'),
    ('```c file=x.c\nint main(void) { return 0; }\n```\n\n```sh\ncc -o x x.c && ./x\n```\n', None),
    ('```sh norun\nls\n```\n', 'needs a reason'),
    ('```sh norun: not here\nexit 1\n```\n', None),
    ('```text check=names\nrt_no_such_function   backend/executor.c\n```\n', 'does not occur'),
    ('```text check=names\nrt_create_executor   backend/no_such_file.c\n```\n', 'no such file'),
    ('```text check=names\nrt_create_executor(kind)   backend/executor.c\n```\n', None),
    ('see [this](no_such_page.md)\n', 'no such file'),
    ('```output\nx\n```\n', 'without a runnable block'),
    ('```c\n#include <stdio.h>\n#include <rt/rt.h>\nint main(void) {\n'
     '  puts(rt_status_code_name(RT_STATUS_NOT_FOUND));\n  return 0;\n}\n```\n\n'
     '```output\nNOT_FOUND\n```\n', None),
    ('```c\nint main(void) { return 2; }\n```\n', 'exit status 2'),
    ('```relay\n#[version = "0.0.5"]\ndef @main(%x: float32) { %x }\n```\n', None),
    ('```relay exit=1\n#[version = "0.0.5"]\ndef @main(%x: float32) { %y }\n```\n\n'
     '```output\n[...]: error: undefined variable `%y`\n...\n```\n', None),
    ('```relay\ndef @main() { 1 }\n```\n', 'exit status 1, expected 0'),
]


def selftest(args):
    """Checks the runner itself on small documents: each case either passes
    or fails with the expected message."""
    runner = Runner(args)
    runner.cache_dir = 'off'
    src = tempfile.mkdtemp(prefix='relayrt-docs-selftest-')
    bad = 0
    try:
        for name in os.listdir(runner.src):
            if name not in ('.git', 'docs') and not name.startswith('build'):
                os.symlink(os.path.join(runner.src, name), os.path.join(src, name))
        os.mkdir(os.path.join(src, 'docs'))
        runner.src = src
        for i, (md, want) in enumerate(SELFTEST_CASES):
            rel = 'docs/case%02d.md' % i
            with open(os.path.join(src, rel), 'w') as f:
                f.write(md)
            fails, _ = runner.run_file(rel)
            ok = (not fails) if want is None else any(want in fl for fl in fails)
            if not ok:
                bad += 1
                print('FAIL selftest case %d: expected %s, got:\n%s\n--- document\n%s' % (
                    i, 'a pass' if want is None else repr(want), '\n'.join(fails) or 'a pass', md))
    finally:
        shutil.rmtree(src, ignore_errors=True)
    print('%d selftest cases, %d failures' % (len(SELFTEST_CASES), bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--src', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--sanitize', default='')
    ap.add_argument('--file', action='append')
    ap.add_argument('-j', type=int, default=2)
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--selftest', action='store_true', help='check the runner itself')
    args = ap.parse_args()
    if args.selftest:
        return selftest(args)
    runner = Runner(args)
    files = args.file or doc_files(runner.src)
    failures = []
    runner.cache_dir = tempfile.mkdtemp(prefix='relayrt-docs-cache-')
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for rel, (fails, notes) in zip(files, pool.map(runner.run_file, files)):
            for n in notes:
                print(n)
            for fl in fails:
                print('FAIL ' + fl)
            failures += fails
    shutil.rmtree(runner.cache_dir, ignore_errors=True)
    print('%d files, %d failures' % (len(files), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
