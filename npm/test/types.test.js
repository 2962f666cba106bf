// The installed schema.d.ts is exactly what npm/scripts/gen-types.js makes of the binary's schema.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const gla = require('git-llm-apply');

test('schema.d.ts matches the binary\'s --json-schema', () => {
  const npmDir = process.env.GIT_LLM_APPLY_NPM_DIR;
  assert.ok(npmDir, 'GIT_LLM_APPLY_NPM_DIR names the npm/ directory of the source tree');
  const { generate } = require(path.join(npmDir, 'scripts', 'gen-types.js'));
  const schema = JSON.parse(execFileSync(gla.findBinary(), ['--json-schema'], { encoding: 'utf8' }));
  const installed = fs.readFileSync(require.resolve('git-llm-apply/schema.d.ts'), 'utf8');
  assert.equal(installed, generate(schema), 'run: node npm/scripts/gen-types.js > npm/git-llm-apply/schema.d.ts');
  const version = JSON.parse(fs.readFileSync(path.join(npmDir, '..', 'Cargo.toml'), 'utf8').match(/^version = ("[^"]+")/m)[1]);
  assert.equal(require('git-llm-apply/package.json').version, version, 'the npm version is the crate\'s');
});
