#!/usr/bin/env node
// Makes the npm package of one platform's binary: @git-llm-apply/<key> with os, cpu and libc set
// so npm installs it only where it runs, and the binary copied with its exec bit.
//
// Usage: node npm/scripts/platform-package.js KEY BINARY OUTDIR
//   KEY is a row of npm/platforms.json (linux-x64-gnu, darwin-arm64, ...); the version is the
//   launcher's (npm/git-llm-apply/package.json), which the launcher's optionalDependencies name.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

function makePlatformPackage(key, binary, outDir) {
  const platforms = require('../platforms.json');
  const launcher = require('../git-llm-apply/package.json');
  const target = platforms[key];
  if (!target || key === '//') throw new Error(`unknown platform ${key}: see npm/platforms.json`);
  const name = `@git-llm-apply/${key}`;
  if (launcher.optionalDependencies[name] !== launcher.version) {
    throw new Error(`${name} is not an optional dependency of the launcher at ${launcher.version}`);
  }
  const manifest = {
    name,
    version: launcher.version,
    description: `The git-llm-apply binary for ${key} (${target.rust}); install git-llm-apply instead`,
    license: launcher.license,
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
    files: ['bin/'],
    preferUnplugged: true,
  };
  const exe = `git-llm-apply${target.exe || ''}`;
  fs.mkdirSync(path.join(outDir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(outDir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  fs.writeFileSync(
    path.join(outDir, 'README.md'),
    `# ${name}\n\nThe \`git-llm-apply\` binary for ${key}. Install \`git-llm-apply\`, which depends on it.\n`,
  );
  const dest = path.join(outDir, 'bin', exe);
  fs.copyFileSync(binary, dest);
  // npm pack keeps the exec bit of what it packs; a copy may not have it.
  fs.chmodSync(dest, 0o755);
  return manifest;
}

if (require.main === module) {
  const [key, binary, outDir] = process.argv.slice(2);
  if (!outDir) {
    process.stderr.write('usage: platform-package.js KEY BINARY OUTDIR\n');
    process.exit(2);
  }
  makePlatformPackage(key, binary, outDir);
}
module.exports = { makePlatformPackage };
