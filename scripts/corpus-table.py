#!/usr/bin/env python3
"""Per-category table from a corpus run (run.py --json), optionally enforcing targets.

    scripts/corpus-table.py OUT.json [-v] [--check]

-v lists every case that is not CORRECT. --check exits 1 when any case is WRONG,
DAMAGED or CONFLICT-MARKED, or a category is below its target: 97% CORRECT by default
(every first-wave category; truncated, duplicated-hunk, compound-2, compound-3 of the
second; every third-wave category: cut-trailing, cut-leading, context-1, one-sided-mix),
90% for missing-context, drift-shallow and issue 12's dialect categories (no-prefix-context,
codex-damaged, sr-damaged, hallucinated-context); drift-damaged must not fall below the 9/11
it held when the second wave joined CI.
"""
import collections
import json
import sys

LOWER_TARGETS = {
    'missing-context': 0.90,
    'drift-shallow': 0.90,
    # Issue 12's targets (90%), reached.
    'no-prefix-context': 0.90,
    'codex-damaged': 0.90,
    'sr-damaged': 0.90,
    'hallucinated-context': 0.90,
    # The one second-wave category without a target of its own yet: no regression from 9/11.
    'drift-damaged': 9 / 11,
}
DEFAULT_TARGET = 0.97

d = json.load(open(sys.argv[1]))
rows = d['results']
cat = collections.defaultdict(collections.Counter)
bad = []
for r in rows:
    c = r.get('category')
    cat[c][r['outcome']] += 1
    cat['TOTAL'][r['outcome']] += 1
    if r['outcome'] != 'CORRECT':
        bad.append((c, r.get('case'), r['outcome'], r.get('detail', '')))
outs = ['CORRECT', 'MISSED', 'WRONG', 'CONFLICT-MARKED', 'DAMAGED']
print('| category | n | ' + ' | '.join(outs) + ' |')
print('|---|---|' + '---|' * len(outs))
failures = []
for c in sorted(cat, key=lambda x: (x == 'TOTAL', x)):
    n = sum(cat[c].values())
    print(f'| {c} | {n} | ' + ' | '.join(str(cat[c][o]) for o in outs) + ' |')
    if c != 'TOTAL':
        target = LOWER_TARGETS.get(c, DEFAULT_TARGET)
        if n and cat[c]['CORRECT'] / n < target:
            failures.append(f'{c}: {cat[c]["CORRECT"]}/{n} CORRECT is below {target:.0%}')
for o in ('WRONG', 'DAMAGED', 'CONFLICT-MARKED'):
    if cat['TOTAL'][o]:
        failures.append(f'{cat["TOTAL"][o]} case(s) {o}')
if '-v' in sys.argv:
    for b in sorted(bad):
        print(*b)
if '--check' in sys.argv and failures:
    for f in failures:
        print('FAIL:', f)
    sys.exit(1)
