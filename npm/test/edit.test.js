// edit(): structured edits through `git llm-apply edit --json-input`, through the installed package.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const gla = require('git-llm-apply');
const { tempRepo, ORIGINAL, APPLIED } = require('./helpers');

test('edit replaces the one place and can be undone', async (t) => {
  const repo = tempRepo(t);
  const report = await gla.edit({ path: 'greet.js', old_string: "'hi '", new_string: "'hello '" }, { repo: repo.root });
  assert.deepEqual([report.status, report.format, report.written], ['applied', 'search-replace', true]);
  assert.equal(repo.read('greet.js'), APPLIED);
  await gla.undo({ repo: repo.root });
  assert.equal(repo.read('greet.js'), ORIGINAL);
});

test('an edit found twice is refused with every line, nothing written', async (t) => {
  const repo = tempRepo(t);
  await assert.rejects(gla.edit({ path: 'greet.js', old_string: 'name', new_string: 'who' }, { repo: repo.root }), (e) => {
    assert.ok(e instanceof gla.Refused);
    assert.deepEqual(e.report.errors.map((x) => x.kind), ['ambiguous']);
    assert.match(e.diagnostic, /occurs 2 times \(at lines 1, 2\)/);
    return true;
  });
  assert.equal(repo.read('greet.js'), ORIGINAL);
});

test('replace_all and a list of edits, all or nothing', async (t) => {
  const repo = tempRepo(t);
  await gla.edit({ path: 'greet.js', old_string: 'name', new_string: 'who', replace_all: true }, { repo: repo.root });
  const renamed = ORIGINAL.replaceAll('name', 'who');
  assert.equal(repo.read('greet.js'), renamed);
  const edits = [
    { old_string: "'hi '", new_string: "'hey '" },
    { old_string: 'nowhere', new_string: 'never seen' },
  ];
  await assert.rejects(gla.edit({ path: 'greet.js', edits }, { repo: repo.root }), gla.Refused);
  assert.equal(repo.read('greet.js'), renamed, 'all or nothing');
  const checked = await gla.edit({ path: 'greet.js', edits: edits.slice(0, 1) }, { repo: repo.root, check: true });
  assert.deepEqual([checked.status, checked.written], ['checked', false]);
});
