#!/usr/bin/env python3
"""Check that every failed hunk's diagnostic fits in 40 lines, over a corpus of cases.

    scripts/diag-bound.py --bin target/debug/git-llm-apply [--cases-dir DIR] [--run-json out.json]
                          [--max 40] [--jobs 2] [--examples 3]

Cases are set up the way the shared corpus runner sets them up (its `setup_repo` is imported
from ../shared/corpus/run.py, or --runner PATH). With --run-json (a `run.py --json` file) only
the cases whose run failed (exit status not 0) are replayed; otherwise every case is. With
--damage, the unified patches of cases that should apply are damaged first, one copy per kind
of damage (a context line's content changed, lines elided as `// ... existing code ...`, a
line cut short with `...`, a blank line added, the path misspelt), with a fixed seed. The
tool runs without colour and its full output is read (run.py keeps only the last 600
characters). A failed hunk's diagnostic is its verdict line (`    hunk N ...: not found: ...`
or `...: ambiguous: ...`) and the lines indented deeper that follow it; a conflicted file's
`conflict:` lines and the regions shown under them count as one diagnostic too.

Prints the distribution of diagnostic sizes, the largest ones, and --examples outputs; exits 1
when any diagnostic is longer than --max lines or any run crashed.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

VERDICT = re.compile(r'^    hunk \d+( \(@@ hint: line \d+\))?: (not found|ambiguous)')
CONFLICT = re.compile(r'^    conflict: ')


def load_runner(path: Path):
    spec = importlib.util.spec_from_file_location('corpus_run', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def blocks(output: str) -> list[list[str]]:
    """The failed-hunk diagnostics in a human report, and each conflicted file's regions
    (its `conflict:` lines and what follows them) as one more."""
    out, cur = [], None
    for line in output.splitlines():
        if CONFLICT.match(line) and cur is not None and CONFLICT.match(cur[0]):
            cur.append(line)
        elif VERDICT.match(line) or CONFLICT.match(line):
            cur = [line]
            out.append(cur)
        elif cur is not None and line.startswith('      '):
            cur.append(line)
        else:
            cur = None
    return out


DAMAGES = ('content', 'elide', 'truncate', 'blank', 'path')


def damage(patch: str, kind: str, rng: random.Random) -> str | None:
    """The patch damaged the way models damage patches, or None when it does not apply.
    Models write no `index` lines, so the damaged copy has none (no three-way rescue)."""
    lines = [l for l in patch.split('\n') if not l.startswith('index ')]
    in_hunk = [i for i, l in enumerate(lines)
               if l[:1] in (' ', '-') and not l.startswith('--- ')
               and any(lines[j].startswith('@@') for j in range(max(0, i - 400), i))]
    body = [i for i in in_hunk if lines[i][1:].strip()]
    if kind == 'path':
        heads = [i for i, l in enumerate(lines) if l.startswith(('--- a/', '+++ b/'))]
        if not heads:
            return None
        old = lines[heads[0]][6:]
        name = old.rsplit('/', 1)[-1]
        if len(name) < 4:
            return None
        cut = rng.randrange(1, len(name) - 1)
        new = old[:len(old) - len(name)] + name[:cut] + name[cut + 1:]
        return '\n'.join(lines).replace(old, new)
    if not body:
        return None
    i = rng.choice(body)
    text = lines[i][1:]
    if kind == 'content':
        words = text.split()
        w = rng.randrange(len(words))
        lines[i] = lines[i][0] + text.replace(words[w], words[w][::-1] + 'X', 1)
    elif kind == 'truncate':
        if len(text.strip()) < 12:
            return None
        lines[i] = lines[i][0] + text[:max(4, len(text) * 3 // 5)] + '...'
    elif kind == 'blank':
        lines.insert(i, ' ')
    elif kind == 'elide':
        run = [j for j in range(i, min(i + 4, len(lines))) if j in in_hunk and lines[j][0] == ' ']
        if len(run) < 2:
            return None
        indent = text[:len(text) - len(text.lstrip())]
        lines[run[0]:run[-1] + 1] = [' ' + indent + '// ... existing code ...']
    return '\n'.join(lines)


def replay(runner, case, binary: str, patch_text: str | None = None,
           label: str | None = None) -> tuple[str, int, str]:
    tmp = Path(tempfile.mkdtemp(prefix='diagbound-'))
    env = dict(os.environ)
    env.update(runner.GIT_ENV)
    env['GIT_CONFIG_GLOBAL'] = str(tmp / 'gitconfig')
    (tmp / 'gitconfig').write_text('')
    env['NO_COLOR'] = '1'
    for v in ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE'):
        env.pop(v, None)
    try:
        repo, _ = runner.setup_repo(case, tmp, env)
        patch = tmp / 'input.patch'
        if patch_text is None:
            shutil.copyfile(case['dir'] / 'patch', patch)
        else:
            patch.write_text(patch_text)
        p = subprocess.run([binary, '--color=never', str(patch)], cwd=repo, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        return label or case['id'], p.returncode, p.stdout.decode('utf-8', errors='replace')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--bin', required=True)
    ap.add_argument('--cases-dir', type=Path)
    ap.add_argument('--run-json', type=Path)
    ap.add_argument('--runner', type=Path, default=here.parent.parent / 'shared/corpus/run.py')
    ap.add_argument('--max', type=int, default=40)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--cases', help='only case ids matching GLOB[,GLOB] (as run.py)')
    ap.add_argument('--examples', type=int, default=0)
    ap.add_argument('--damage', action='store_true',
                    help='instead of the patches as they are, run damaged copies of the unified '
                         'patches of cases that should apply (one per kind of damage, fixed seed)')
    a = ap.parse_args()

    if not a.runner.exists():
        a.runner = Path('/work/shared/corpus/run.py')
    runner = load_runner(a.runner)
    cases_dir = a.cases_dir or runner.default_cases_dir()
    cases = runner.load_cases(cases_dir, a.cases, None, None)
    if a.run_json:
        data = json.loads(a.run_json.read_text())
        rows = data['results'] if isinstance(data, dict) else data
        failed = {r['case'] for r in rows if r.get('rc') != 0}
        cases = [c for c in cases if c['id'] in failed]
    binary = str(Path(a.bin).resolve())
    jobs = [(c, None, None) for c in cases]
    if a.damage:
        rng = random.Random(7)
        jobs = []
        for c in cases:
            if c['meta']['format'] != 'unified' or c['hist']['expected'] != 'files':
                continue
            original = (c['dir'] / 'patch').read_text(errors='replace')
            for kind in DAMAGES:
                damaged = damage(original, kind, rng)
                if damaged is not None and damaged != original:
                    jobs.append((c, damaged, f"{c['id']}+{kind}"))
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: replay(runner, j[0], binary, j[1], j[2]), jobs))

    sizes, over, shown = [], [], 0
    for case_id, rc, output in results:
        for b in blocks(output):
            sizes.append((len(b), case_id))
            if len(b) > a.max:
                over.append((len(b), case_id))
    failed_runs = sum(1 for _, rc, _ in results if rc != 0)
    crashed = [cid for cid, rc, out in results if rc == 101 or 'panicked at' in out]
    print(f'{len(results)} cases replayed, {failed_runs} failed runs, {len(sizes)} diagnostics (failed hunks, conflicted files)')
    if sizes:
        ns = sorted(n for n, _ in sizes)
        print(f'lines per diagnostic: min {ns[0]}, median {ns[len(ns) // 2]}, max {ns[-1]}')
        for n, cid in sorted(sizes, reverse=True)[:5]:
            print(f'  {n:3d} lines  {cid}')
    if a.examples:
        # The largest diagnostic of a few different cases, in full.
        seen = set()
        for n, cid in sorted(sizes, reverse=True):
            if cid in seen or shown >= a.examples:
                continue
            seen.add(cid)
            shown += 1
            output = next(o for c, _, o in results if c == cid)
            print(f'\n--- {cid} ---')
            print(output.rstrip())
    if crashed:
        print(f'{len(crashed)} run(s) crashed:', file=sys.stderr)
        for cid in crashed:
            print(f'  {cid}', file=sys.stderr)
        return 1
    if over:
        print(f'{len(over)} diagnostic(s) longer than {a.max} lines:', file=sys.stderr)
        for n, cid in over:
            print(f'  {n} lines  {cid}', file=sys.stderr)
        return 1
    print(f'every diagnostic fits in {a.max} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
