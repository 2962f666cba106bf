// Which git-llm-apply binary to run: the one in this platform's package (an optional dependency
// npm installs only where its os/cpu/libc match), found through require.resolve.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SCOPE = '@git-llm-apply';

// glibc and musl builds are different packages; node's own report says which libc it runs on.
function libc() {
  if (process.platform !== 'linux') return null;
  const header = process.report && process.report.getReport().header;
  return header && header.glibcVersionRuntime ? 'gnu' : 'musl';
}

function platformKey() {
  const c = libc();
  return `${process.platform}-${process.arch}${c ? `-${c}` : ''}`;
}

function exeName() {
  return process.platform === 'win32' ? 'git-llm-apply.exe' : 'git-llm-apply';
}

// The platform package's binary, or an Error saying why there is none.
function platformBinary() {
  const pkg = `${SCOPE}/${platformKey()}`;
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    return new Error(
      `${pkg} is not installed: it is an optional dependency of git-llm-apply for this platform ` +
        '(npm skips it with --no-optional or --omit=optional, or when it does not exist for this platform); ' +
        'reinstall git-llm-apply, or build the binary from a clone with `cargo install --locked --path .`',
    );
  }
  const bin = path.join(path.dirname(manifest), 'bin', exeName());
  if (!fs.existsSync(bin)) return new Error(`${pkg} has no ${path.join('bin', exeName())}`);
  return bin;
}

// For the API: the platform package first, then PATH.
function findBinary() {
  const found = platformBinary();
  if (typeof found === 'string') return found;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, exeName());
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

module.exports = { platformKey, platformBinary, findBinary, SCOPE };
