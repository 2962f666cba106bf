// Test helpers: a real temporary git repository with pinned identity and dates.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const GIT = process.env.GIT_LLM_APPLY_GIT || 'git';
const PINNED = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
};

const ORIGINAL = "export function greet(name) {\n  return 'hi ' + name;\n}\n";
const APPLIED = "export function greet(name) {\n  return 'hello ' + name;\n}\n";
const GOOD = [
  'Here is the change:',
  '```diff',
  '--- a/greet.js',
  '+++ b/greet.js',
  '@@ -1,3 +1,3 @@',
  ' export function greet(name) {',
  "-  return 'hi ' + name;",
  "+  return 'hello ' + name;",
  ' }',
  '```',
  '',
].join('\n');
const STALE = GOOD.replace("-  return 'hi '", "-  return 'howdy '");

function tempRepo(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gla-npm-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const env = { ...process.env, ...PINNED, HOME: root };
  const git = (...args) => execFileSync(GIT, ['-C', root, ...args], { env, stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'greet.js'), ORIGINAL);
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return { root, env, read: (f) => fs.readFileSync(path.join(root, f), 'utf8') };
}

module.exports = { tempRepo, GOOD, STALE, ORIGINAL, APPLIED, PINNED };
