#!/usr/bin/env python3
"""Per-category table (and non-CORRECT cases) from a run.py --json file."""
import collections
import json
import sys

d = json.load(open(sys.argv[1]))
res = d['results']
rows = res if isinstance(res, list) else [r for v in res.values() for r in (v if isinstance(v, list) else [v])]
cat = collections.defaultdict(collections.Counter)
bad = []
for r in rows:
    c = r.get('category') or r.get('meta', {}).get('category')
    cat[c][r['outcome']] += 1
    cat['TOTAL'][r['outcome']] += 1
    if r['outcome'] != 'CORRECT':
        bad.append((c, r.get('case') or r.get('id'), r['outcome'], r.get('detail', '')))
outs = ['CORRECT', 'MISSED', 'WRONG', 'CONFLICT-MARKED', 'DAMAGED']
print('| category | n | ' + ' | '.join(outs) + ' |')
print('|---|---|' + '---|' * len(outs))
for c in sorted(cat, key=lambda x: (x == 'TOTAL', x)):
    n = sum(cat[c].values())
    print(f'| {c} | {n} | ' + ' | '.join(str(cat[c][o]) for o in outs) + ' |')
if '-v' in sys.argv:
    for b in sorted(bad):
        print(*b)
