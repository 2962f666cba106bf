// The TypeScript/JavaScript API against real temporary repositories, through the installed
// package (this file runs inside a project that installed the packed tarballs).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const gla = require('git-llm-apply');
const { tempRepo, GOOD, STALE, ORIGINAL, APPLIED } = require('./helpers');

test('the binary the API runs is the platform package', () => {
  const bin = gla.findBinary();
  assert.match(bin, /node_modules[\\/]@git-llm-apply[\\/][^\\/]+[\\/]bin[\\/]git-llm-apply(\.exe)?$/);
});

test('apply writes the edit and resolves to the report', async (t) => {
  const repo = tempRepo(t);
  const report = await gla.apply(GOOD, { repo: repo.root });
  assert.equal(report.status, 'applied');
  assert.equal(report.exit_code, 0);
  assert.equal(report.written, true);
  assert.equal(repo.read('greet.js'), APPLIED);
  assert.deepEqual(
    report.files.map((f) => [f.path, f.status, f.added, f.removed, f.hunks[0].line]),
    [['greet.js', 'applied', 1, 1, 1]],
  );
  assert.deepEqual(report.notices.map((n) => n.kind), ['fence-stripped', 'prose-ignored']);
  assert.equal(report.snapshot, 'refs/llm-apply/1');
});

test('check reports without writing', async (t) => {
  const repo = tempRepo(t);
  const report = await gla.apply(GOOD, { repo: repo.root, check: true });
  assert.deepEqual([report.status, report.written, report.check], ['checked', false, true]);
  assert.equal(repo.read('greet.js'), ORIGINAL);
});

test('a refusal rejects with the diagnostic and writes nothing', async (t) => {
  const repo = tempRepo(t);
  const err = await gla.apply(STALE, { repo: repo.root }).then(
    () => assert.fail('a stale hunk applied'),
    (e) => e,
  );
  assert.ok(err instanceof gla.Refused, err);
  assert.ok(err instanceof gla.GitLlmApplyError);
  assert.equal(err.exitCode, 1);
  assert.equal(err.report.status, 'refused');
  assert.equal(repo.read('greet.js'), ORIGINAL);
  const advice = err.report.files[0].hunks[0].diagnostic.advice;
  for (const part of ['greet.js refused', 'hunk 1 (@@ hint: line 1): not found', "2 |   return 'howdy ' + name;", `advice: ${advice}`]) {
    assert.ok(err.diagnostic.includes(part), `${part} missing from:\n${err.diagnostic}`);
  }
  assert.equal(err.message, err.diagnostic);
  assert.deepEqual((await gla.log({ repo: repo.root })).snapshots, []);
});

test('unparseable input rejects as invalid input', async (t) => {
  const repo = tempRepo(t);
  await assert.rejects(gla.apply('make greet say hello', { repo: repo.root }), (e) => {
    assert.ok(e instanceof gla.InvalidInput);
    assert.equal(e.exitCode, 2);
    assert.deepEqual(e.report.errors.map((x) => x.kind), ['parse']);
    return true;
  });
});

test('undo restores the bytes and log shows both', async (t) => {
  const repo = tempRepo(t);
  await gla.apply(GOOD, { repo: repo.root, label: 'say hello', session: 's1' });
  const [entry] = (await gla.log({ repo: repo.root })).snapshots;
  assert.deepEqual(
    [entry.id, entry.status, entry.intent, entry.session, entry.paths],
    [1, 'applied', 'say hello', 's1', ['greet.js']],
  );
  const report = await gla.undo({ repo: repo.root });
  assert.deepEqual([report.status, report.reverse], ['applied', true]);
  assert.equal(repo.read('greet.js'), ORIGINAL);
  const listing = await gla.log({ repo: repo.root });
  assert.deepEqual(listing.snapshots.map((s) => [s.id, s.status]), [[2, 'undo'], [1, 'undone']]);
  await assert.rejects(gla.undo({ repo: repo.root, id: 1 }), (e) => {
    assert.ok(e instanceof gla.Refused);
    assert.equal(e.report.errors[0].kind, 'already-undone');
    return true;
  });
});

test('partial resolves to the report of what applied', async (t) => {
  const repo = tempRepo(t);
  fs.writeFileSync(path.join(repo.root, 'other.txt'), 'one\ntwo\n');
  const patch = STALE + '--- a/other.txt\n+++ b/other.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n';
  const report = await gla.apply(patch, { repo: repo.root, partial: true });
  assert.deepEqual([report.status, report.exit_code], ['partial', 3]);
  assert.deepEqual(report.files.map((f) => [f.path, f.status]), [['greet.js', 'refused'], ['other.txt', 'applied']]);
  assert.equal(repo.read('other.txt'), 'one\n2\n');
});

test('a missing binary rejects with its own error', async (t) => {
  const repo = tempRepo(t);
  await assert.rejects(
    gla.apply(GOOD, { repo: repo.root, binary: path.join(repo.root, 'no-such-binary') }),
    gla.BinaryNotFound,
  );
  assert.equal(repo.read('greet.js'), ORIGINAL);
});

test('a report that says what to show is shown as it is', () => {
  const report = { status: 'refused', exit_code: 1, errors: [], files: [], hooks: [] };
  assert.equal(new gla.Refused('x', { report }).diagnostic, 'git llm-apply: refused (exit 1)');
  const said = { ...report, message: '! a.txt refused\n  advice: resend the hunk\n' };
  assert.equal(new gla.Refused('x', { report: said }).diagnostic, said.message);
});
