// The `git-llm-apply` launcher as npm installed it: arguments, stdio, exit codes and signals pass
// through to the platform package's binary.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { tempRepo, GOOD, STALE, APPLIED, ORIGINAL } = require('./helpers');

const LAUNCHER = require.resolve('git-llm-apply/bin/git-llm-apply.js');
const run = (args, opts = {}) => spawnSync(process.execPath, [LAUNCHER, ...args], { encoding: 'utf8', ...opts });

test('the platform package was installed with its exec bit and its os, cpu and libc', () => {
  const manifest = require.resolve('@git-llm-apply/linux-x64-gnu/package.json');
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  assert.deepEqual([pkg.os, pkg.cpu, pkg.libc], [['linux'], ['x64'], ['glibc']]);
  const launcher = JSON.parse(fs.readFileSync(require.resolve('git-llm-apply/package.json'), 'utf8'));
  assert.equal(pkg.version, launcher.version);
  const mode = fs.statSync(path.join(path.dirname(manifest), 'bin', 'git-llm-apply')).mode;
  assert.equal(mode & 0o111, 0o111, `binary mode ${mode.toString(8)}`);
});

test('stdin, stdout and a success exit pass through', (t) => {
  const repo = tempRepo(t);
  const r = run(['-C', repo.root, '--color=never', '-'], { input: GOOD });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /greet\.js/);
  assert.equal(repo.read('greet.js'), APPLIED);
});

test('a refusal exits 1 with the diagnostic on stderr', (t) => {
  const repo = tempRepo(t);
  const r = run(['-C', repo.root, '--color=never', '-'], { input: STALE });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /advice: /);
  assert.equal(repo.read('greet.js'), ORIGINAL);
});

test('usage errors exit 2', () => {
  const r = run(['--no-such-flag']);
  assert.equal(r.status, 2);
});

function childrenOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

test('a signal to the launcher reaches the binary and ends the launcher the same way', async (t) => {
  const repo = tempRepo(t);
  // With stdin left open the binary waits for the patch, so it is running when the signal comes.
  const launcher = spawn(process.execPath, [LAUNCHER, '-C', repo.root, '-'], { stdio: ['pipe', 'ignore', 'ignore'] });
  let child = [];
  for (let i = 0; i < 200 && child.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
    child = childrenOf(launcher.pid);
  }
  assert.equal(child.length, 1, 'the launcher started one binary');
  const ended = new Promise((resolve) => launcher.on('exit', (code, signal) => resolve({ code, signal })));
  launcher.kill('SIGTERM');
  assert.deepEqual(await ended, { code: null, signal: 'SIGTERM' });
  const state = () => {
    try {
      return fs.readFileSync(`/proc/${child[0]}/status`, 'utf8').split('\n').filter((l) => /^(State|PPid)/.test(l)).join(', ');
    } catch {
      return 'gone';
    }
  };
  assert.throws(() => process.kill(child[0], 0), { code: 'ESRCH' }, `the binary is gone, not ${state()}`);
  launcher.stdin.destroy();
  assert.equal(repo.read('greet.js'), ORIGINAL);
});
