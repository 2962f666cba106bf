"""Robustness fuzzer: valid patches of the three formats (unified, Codex `*** Begin Patch`,
SEARCH/REPLACE), written for real files in a temp repository, mutated the way streams and models
break them, and applied with the binary. Driven by scripts/fuzz.sh; see there for the options.

A case fails on:
  panic       exit 101, or a JSON error of kind `internal`
  timeout     the run took longer than --timeout seconds
  escape      a file outside the work tree changed, or one inside `.git` other than the tool's
              own (objects/, refs/llm-apply/, logs/refs/llm-apply/, llm-apply/)
  no-json     --json printed something other than one report document
  refusal-wrote  a run that exited 1 or 2, or ran with --check, changed the work tree
  context-diff   only a context line was mutated, the hunk's place is still unique, the run
              exited 0, and the result differs from the unmutated patch's result (a lead to
              look at: see the saved case)
Also counted, not failing: cut_partial, a cut-off patch that exited 0 with a result that is
neither the unmutated patch's nor the untouched tree (a cut within the miscount allowance).
Every failing case is saved under --out (the base file, both patches, the command's output).
Files to patch: this repository's own sources and test fixtures, so it runs in a fresh clone.
"""
import argparse
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
OWN_GIT = ('objects/', 'refs/llm-apply/', 'logs/refs/llm-apply/', 'llm-apply/')
GENV = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', GIT_CONFIG_GLOBAL='/dev/null', LC_ALL='C',
            GIT_AUTHOR_NAME='Fuzz', GIT_AUTHOR_EMAIL='fuzz@example.com',
            GIT_COMMITTER_NAME='Fuzz', GIT_COMMITTER_EMAIL='fuzz@example.com',
            GIT_AUTHOR_DATE='2024-01-01T00:00:00Z', GIT_COMMITTER_DATE='2024-01-01T00:00:00Z',
            NO_COLOR='1')
for k in ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'RUST_BACKTRACE'):
    GENV.pop(k, None)


def source_files():
    """(relative path, text) of small UTF-8 text files of this repository with a final newline."""
    out = []
    for top in ('src', 'tests/fixtures/formats', 'scripts', 'hooks', 'docs'):
        for root, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                p = os.path.join(root, n)
                try:
                    b = open(p, 'rb').read()
                    t = b.decode('utf-8')
                except (OSError, UnicodeDecodeError):
                    continue
                if '\r' in t or not t.endswith('\n') or not 15 <= t.count('\n') <= 1500:
                    continue
                out.append((os.path.relpath(p, ROOT), t))
    out.sort()
    return out


def git(args, cwd):
    subprocess.run(['git', *args], cwd=cwd, env=GENV, check=True, capture_output=True)


def tree(top, skip=('.git',)):
    """Every file below `top` except those under the top-level `skip` folders: path -> bytes."""
    out = {}
    for root, dirs, names in os.walk(top):
        if root == top:
            dirs[:] = [d for d in dirs if d not in skip]
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, top)
            out[rel] = os.readlink(p).encode() if os.path.islink(p) else open(p, 'rb').read()
    return out


def git_state(gitdir):
    """Files inside .git that are not the tool's own: path -> (size, mtime_ns, digest)."""
    out = {}
    for root, dirs, names in os.walk(gitdir):
        dirs[:] = [d for d in dirs
                   if not (os.path.relpath(os.path.join(root, d), gitdir) + '/').startswith(OWN_GIT)]
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, gitdir)
            if rel.startswith(OWN_GIT):
                continue
            st = os.lstat(p)
            out[rel] = (st.st_size, st.st_mtime_ns)
    return out


class Sandbox:
    """S/repo (the work tree), S/outside (must never change), S/patch (the input)."""

    def __init__(self, base, files, drift=None):
        self.top = tempfile.mkdtemp(prefix='fuzz-', dir=base)
        self.repo = os.path.join(self.top, 'repo')
        self.outside = os.path.join(self.top, 'outside')
        self.files = files
        # (path, text): a file the work tree has moved on in since the commit, so that the
        # patches, written for the commit, go through the history and merge strategies.
        self.drift = drift
        os.makedirs(self.outside)
        with open(os.path.join(self.outside, 'victim.txt'), 'w') as f:
            f.write('outside the work tree\n')
        self.runs = 0
        self.fresh()

    def fresh(self):
        shutil.rmtree(self.repo, ignore_errors=True)
        os.makedirs(self.repo)
        git(['init', '-q', '-b', 'main'], self.repo)
        git(['config', 'core.autocrlf', 'false'], self.repo)
        for p, t in self.files.items():
            full = os.path.join(self.repo, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, 'w') as f:
                f.write(t)
        git(['add', '-A'], self.repo)
        git(['commit', '-q', '-m', 'base'], self.repo)
        if self.drift:
            with open(os.path.join(self.repo, self.drift[0]), 'w') as f:
                f.write(self.drift[1])
        self.pristine = tree(self.repo)
        self.outside_state = self.outside_files()

    def outside_files(self):
        out = tree(self.top, skip=('repo',))
        out.pop('patch', None)
        return out

    def restore(self):
        """Put the work tree back as committed, without a git process."""
        now = tree(self.repo)
        for p in now:
            if p not in self.pristine:
                os.remove(os.path.join(self.repo, p))
        for p, b in self.pristine.items():
            if now.get(p) != b:
                full = os.path.join(self.repo, p)
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, 'wb') as f:
                    f.write(b)
        for root, dirs, names in os.walk(self.repo, topdown=False):
            if '/.git' in root + '/' or root == self.repo:
                continue
            if not os.listdir(root):
                os.rmdir(root)

    def run(self, binary, patch, args, timeout):
        """Apply `patch` (bytes); returns a dict of what happened."""
        self.runs += 1
        if self.runs % 400 == 0:
            self.fresh()
        with open(os.path.join(self.top, 'patch'), 'wb') as f:
            f.write(patch)
        before_git = git_state(os.path.join(self.repo, '.git'))
        t0 = time.time()
        try:
            r = subprocess.run([binary, '--json', *args, os.path.join(self.top, 'patch')],
                               cwd=self.repo, env=GENV, capture_output=True, timeout=timeout)
            code, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            code, out, err = None, e.stdout or b'', e.stderr or b''
        elapsed = time.time() - t0
        after = tree(self.repo)
        outside = self.outside_files()
        after_git = git_state(os.path.join(self.repo, '.git'))
        res = dict(code=code, out=out, err=err, elapsed=elapsed, tree=after,
                   changed=after != self.pristine,
                   escaped=sorted(set(outside.items()) ^ set(self.outside_state.items())),
                   git_changed=sorted(k for k in set(before_git) | set(after_git)
                                      if before_git.get(k) != after_git.get(k)))
        if res['escaped']:
            # Put the outside back so one escape is not counted again and again.
            for k in list(outside):
                if k not in self.outside_state:
                    p = os.path.join(self.top, k)
                    os.remove(p)
            for k, v in self.outside_state.items():
                with open(os.path.join(self.top, k), 'wb') as f:
                    f.write(v)
        if res['git_changed']:
            self.fresh()
        else:
            self.restore()
        return res


# ------------------------------------------------------------------ valid patches

def edit(rng, lines):
    """A random edit of `lines` (each with its newline): new lines."""
    new = list(lines)
    for _ in range(rng.choice([1, 1, 2, 3])):
        p = rng.randrange(len(new))
        ind = re.match(r'[ \t]*', new[p]).group(0)
        add = [ind + rng.choice(['let x%d = %d;' % (rng.randrange(99), rng.randrange(99)),
                                 'return None', '// note %d' % rng.randrange(999), '',
                                 'value = compute(%d)' % rng.randrange(99)]) + '\n'
               for _ in range(rng.choice([1, 1, 2]))]
        kind = rng.choice(['replace', 'insert', 'delete', 'replace'])
        if kind == 'replace':
            new[p:p + 1] = add
        elif kind == 'insert':
            new[p:p] = add
        elif len(new) > 20:
            del new[p:p + rng.choice([1, 2])]
    return new


def hunks(old, new, context=3):
    """difflib's unified hunks: list of (header, body lines with their prefix, no newline)."""
    out = []
    diff = list(difflib.unified_diff(old, new, n=context, lineterm='\n'))[2:]
    cur = None
    for d in diff:
        if d.startswith('@@'):
            cur = [d.rstrip('\n'), []]
            out.append(cur)
        else:
            cur[1].append(d.rstrip('\n'))
    return out


def render(fmt, path, hs):
    if fmt == 'unified':
        s = f'diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n'
        for head, body in hs:
            s += head + '\n' + ''.join(l + '\n' for l in body)
        return s
    if fmt == 'codex':
        s = f'*** Update File: {path}\n'
        for _, body in hs:
            s += '@@\n' + ''.join(l + '\n' for l in body)
        return s
    s = ''
    for _, body in hs:
        search = ''.join(l[1:] + '\n' for l in body if l[:1] in ' -')
        replace = ''.join(l[1:] + '\n' for l in body if l[:1] in ' +')
        s += f'{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n\n'
    return s


def make_patch(rng, files, fmt):
    """A valid patch for one or two files: (text, [(path, hunks)])."""
    paths = rng.sample(sorted(files), rng.choice([1, 1, 1, 2]))
    parts, info = [], []
    for p in paths:
        old = files[p].splitlines(keepends=True)
        hs = hunks(old, edit(rng, old), rng.choice([3, 3, 2, 1]))
        if not hs:
            continue
        parts.append(render(fmt, p, hs))
        info.append((p, hs))
    if not parts:
        return None, None
    text = ''.join(parts)
    if fmt == 'codex':
        text = '*** Begin Patch\n' + text + '*** End Patch\n'
    if rng.random() < 0.2 and fmt != 'search-replace':
        text = 'Here is the change:\n\n```diff\n' + text + '```\n'
    return text, info


# ------------------------------------------------------------------ mutations

# Each valid patch is mutated this many times (its own run is the reference for all of them).
MUTATIONS_PER_PATCH = 4

HUGE = ['18446744073709551615', '18446744073709551616', '4294967296', '9223372036854775807',
        '0', '99999999999999999999999', '-1']


def context_lines(text):
    """Indices of lines of the patch text that are context lines of a hunk (leading space)."""
    ls = text.split('\n')
    return [i for i, l in enumerate(ls) if l.startswith(' ') and len(l) > 2]


def mutate(rng, text, fmt):
    """(mutated bytes, what, the mutated line index when only a context line changed)."""
    ls = text.split('\n')
    kind = rng.choice(['drop', 'dup', 'swap', 'truncate', 'huge', 'nul', 'utf8', 'cr', 'long',
                       'context', 'context', 'context', 'path', 'marker', 'blank', 'bytes'])
    i = rng.randrange(len(ls))
    ctx = None
    if kind == 'drop':
        del ls[i]
    elif kind == 'dup':
        ls[i:i] = [ls[i]] * rng.choice([1, 1, 2, 50])
    elif kind == 'swap' and len(ls) > 1:
        j = min(i + 1, len(ls) - 1)
        ls[i], ls[j] = ls[j], ls[i]
    elif kind == 'truncate':
        b = text.encode()
        return b[:rng.randrange(len(b) + 1)], 'truncate', None
    elif kind == 'huge':
        heads = [k for k, l in enumerate(ls) if l.startswith('@@') or ':start_line:' in l]
        if heads:
            k = rng.choice(heads)
            nums = list(re.finditer(r'\d+', ls[k]))
            if nums:
                m = rng.choice(nums)
                ls[k] = ls[k][:m.start()] + rng.choice(HUGE) + ls[k][m.end():]
            else:
                ls[k] = '@@ -%s,%s +1,1 @@' % (rng.choice(HUGE), rng.choice(HUGE))
    elif kind == 'nul':
        l = ls[i]
        p = rng.randrange(len(l) + 1)
        ls[i] = l[:p] + '\0' + l[p:]
    elif kind == 'utf8':
        b = text.encode()
        p = rng.randrange(len(b) + 1)
        return b[:p] + rng.choice([b'\xff', b'\xc3', b'\xed\xa0\x80', b'\x80']) + b[p:], 'utf8', None
    elif kind == 'cr':
        if rng.random() < 0.5:
            ls = [l + '\r' for l in ls]
        else:
            ls[i] = ls[i] + '\r'
    elif kind == 'long':
        ls[i] = ls[i] + 'x' * rng.choice([5000, 100000, 1000000])
    elif kind == 'context':
        cands = context_lines(text)
        if cands:
            ctx = rng.choice(cands)
            l = ls[ctx]
            p = rng.randrange(1, len(l))
            op = rng.choice(['char', 'ws', 'case'])
            if op == 'char':
                ls[ctx] = l[:p] + rng.choice('xq#;') + l[p + 1:]
            elif op == 'ws':
                ls[ctx] = l + '  '
            else:
                ls[ctx] = l.swapcase()
            if ls[ctx] == l:
                ctx = None
    elif kind == 'path':
        targets = ['../outside/victim.txt', '/ABS/outside/victim.txt', '.git/config',
                   '.git/hooks/post-checkout', 'a/../../outside/victim.txt', 'new/../../x']
        heads = [k for k, l in enumerate(ls)
                 if l.startswith(('--- ', '+++ ', 'diff --git', '*** Update File:', '*** Add File:'))
                 or (k + 1 < len(ls) and ls[k + 1].strip().startswith(('```', '<<<<<<<')))]
        if heads:
            k = rng.choice(heads)
            t = rng.choice(targets)
            l = ls[k]
            if l.startswith(('--- ', '+++ ')):
                ls[k] = l[:4] + rng.choice(['', 'a/', 'b/']) + t
            elif l.startswith('diff --git'):
                ls[k] = f'diff --git a/{t} b/{t}'
            elif l.startswith('***'):
                ls[k] = l.split(':')[0] + ': ' + t
            else:
                ls[k] = t
    elif kind == 'marker':
        marks = [k for k, l in enumerate(ls) if l.startswith(('***', '<<<<<<<', '=======', '>>>>>>>', '```', '@@', '\\'))]
        if marks:
            k = rng.choice(marks)
            ls[k] = rng.choice(['', ls[k][:3], ls[k] + ' ', '*** End of File', '=======', '@@ @@'])
    elif kind == 'blank':
        ls[i:i] = [''] * rng.choice([1, 3])
    else:
        b = bytearray(text.encode())
        for _ in range(rng.choice([1, 2, 5])):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b), 'bytes', None
    return '\n'.join(ls).encode('utf-8', 'surrogateescape'), kind, ctx


def still_unique(files, info, mutated_line, text):
    """Whether the hunk holding the mutated context line keeps one place: its old side, with the
    mutation, occurs exactly nowhere else in the file (so the only sensible place is the
    original one). Conservative: unknown is 'not unique'."""
    ls = text.split('\n')
    # A Codex marker the tool reads with whitespace around it (` *** Add File: x`) is a
    # marker, not a context line.
    def body(l):
        return l[:1] in (' ', '-', '+') and not l.strip().startswith('***')
    if not body(ls[mutated_line]):
        return False
    # the hunk around the mutated line: up to the previous '@@'/SEARCH header
    start = mutated_line
    while start > 0 and body(ls[start - 1]):
        start -= 1
    end = mutated_line
    while end + 1 < len(ls) and body(ls[end + 1]):
        end += 1
    old = [l[1:] for l in ls[start:end + 1] if l[:1] in (' ', '-')]
    head = ''
    for k in range(start - 1, -1, -1):
        if ls[k].startswith(('+++ ', '*** Update File:')):
            head = ls[k]
            break
        # The lines of a file a Codex patch adds (or a SEARCH/REPLACE block's text) are not
        # the context of an earlier file's hunk, even when they lack their '+'.
        if ls[k].strip().startswith(('*** Add File:', '*** Delete File:', '*** End Patch',
                                     '*** Begin Patch')):
            return False
    path = next((p for p, _ in info if head.endswith(p)), None)
    if path is None or not old:
        return False
    flines = files[path].split('\n')
    n = len(old)
    return not any(flines[s:s + n] == old for s in range(len(flines) - n + 1))


# ------------------------------------------------------------------ driver

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--iterations', type=int, default=0)
    ap.add_argument('--seconds', type=float, default=0)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--timeout', type=float, default=20)
    ap.add_argument('--out', default=None)
    ap.add_argument('--progress', type=int, default=0)
    a = ap.parse_args()
    if not a.iterations and not a.seconds:
        a.iterations = 500
    binary = os.path.abspath(a.bin)
    rng = random.Random(a.seed)
    pool = source_files()
    if len(pool) < 4:
        print('fuzz: not enough source files to patch', file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix='git-llm-apply-fuzz-')
    out_dir = a.out or os.path.join(work, 'failures')
    os.makedirs(out_dir, exist_ok=True)
    tally = dict(iterations=0, panic=0, timeout=0, escape=0, no_json=0, refusal_wrote=0,
                 context_diff=0, context_checked=0, exit0=0, exit1=0, exit2=0, exit3=0)
    failures = []
    sandbox = None
    t0 = time.time()
    i = 0
    while True:
        if a.iterations and i >= a.iterations:
            break
        if a.seconds and time.time() - t0 >= a.seconds:
            break
        if i % 200 == 0:
            # A new small repository: 3 to 5 of the pool's files at their own paths.
            if sandbox:
                shutil.rmtree(sandbox.top, ignore_errors=True)
            chosen = dict(rng.sample(pool, rng.choice([3, 4, 5])))
            drift = None
            if rng.random() < 0.5:
                p = rng.choice(sorted(chosen))
                ls = chosen[p].splitlines(keepends=True)
                at = rng.choice([0, len(ls) // 2, len(ls)])
                ls[at:at] = ['// drifted %d\n' % k for k in range(rng.choice([1, 5, 40]))]
                drift = (p, ''.join(ls))
            sandbox = Sandbox(work, chosen, drift)
            base = None
        i += 1
        tally['iterations'] += 1
        if i % MUTATIONS_PER_PATCH == 1 or base is None:
            fmt = rng.choice(['unified', 'unified', 'codex', 'search-replace'])
            text, info = make_patch(rng, sandbox.files, fmt)
            if text is None:
                base = None
                continue
            r0 = sandbox.run(binary, text.encode(), [], a.timeout)
            base = (r0['code'], r0['tree'])
        base_code, base_tree = base
        mutated, what, ctx = mutate(rng, text, fmt)
        mutated = mutated.replace(b'/ABS/outside', sandbox.outside.encode())
        args = rng.choice([[], [], [], ['--check'], ['--partial'], ['--no-snapshot']])
        r = sandbox.run(binary, mutated, args, a.timeout)
        problems = []
        report = None
        if r['code'] is None:
            problems.append('timeout')
        else:
            tally['exit%d' % r['code']] = tally.get('exit%d' % r['code'], 0) + 1
            try:
                report = json.loads(r['out'])
            except ValueError:
                report = None
            if r['code'] == 101 or (report and any(e.get('kind') == 'internal' for e in report.get('errors', []))):
                problems.append('panic')
            elif not isinstance(report, dict) or report.get('exit_code') != r['code']:
                problems.append('no_json')
        if r['escaped'] or r['git_changed']:
            problems.append('escape')
        if r['code'] in (1, 2) or '--check' in args:
            if r['changed']:
                problems.append('refusal_wrote')
        if ctx is not None and r['code'] == 0 and base_code == 0 and not args:
            current = {p: b.decode('utf-8', 'replace') for p, b in sandbox.pristine.items()}
            if still_unique(current, info, ctx, mutated.decode('utf-8', 'replace')):
                tally['context_checked'] += 1
                if r['tree'] != base_tree:
                    problems.append('context_diff')
        # Not a failure, a figure: a cut that still applied a part of the edit. Below the
        # miscount allowance (up to 3 lines) a cut and a miscount cannot be told apart.
        if what == 'truncate' and r['code'] == 0 and base_code == 0 and not args \
                and r['tree'] not in (base_tree, sandbox.pristine):
            tally['cut_partial'] = tally.get('cut_partial', 0) + 1
            if tally['cut_partial'] <= 20:
                keep = os.path.join(out_dir, 'cut-partial-%06d' % i)
                os.makedirs(keep, exist_ok=True)
                open(os.path.join(keep, 'patch.orig'), 'w').write(text)
                open(os.path.join(keep, 'patch'), 'wb').write(mutated)
        for p in problems:
            tally[p] += 1
        if problems:
            case = os.path.join(out_dir, '%06d-%s' % (i, '-'.join(problems)))
            os.makedirs(case, exist_ok=True)
            for p, t in sandbox.files.items():
                full = os.path.join(case, 'base', p)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                open(full, 'w').write(t)
            open(os.path.join(case, 'patch.orig'), 'w').write(text)
            open(os.path.join(case, 'patch'), 'wb').write(mutated)
            open(os.path.join(case, 'run.txt'), 'wb').write(
                ('mutation: %s\nargs: %s\nexit: %s\nescaped: %s\ngit changed: %s\n--- stdout\n'
                 % (what, args, r['code'], r['escaped'], r['git_changed'])).encode()
                + r['out'][-4000:] + b'\n--- stderr\n' + r['err'][-4000:])
            failures.append(dict(case=case, problems=problems, mutation=what))
            print('FAIL %s %s (%s)' % (','.join(problems), case, what), flush=True)
        if a.progress and i % a.progress == 0:
            print('... %d iterations, %.0fs, %s' % (i, time.time() - t0, json.dumps(
                {k: v for k, v in tally.items() if v and k != 'iterations'})), flush=True)
    if sandbox:
        shutil.rmtree(sandbox.top, ignore_errors=True)
    tally['seconds'] = round(time.time() - t0, 1)
    print(json.dumps(tally))
    if failures:
        print('fuzz: %d failing case(s) kept in %s' % (len(failures), out_dir))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
