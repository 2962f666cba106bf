#!/usr/bin/env node
// The `git-llm-apply` command of the npm package: runs this platform's binary with the same
// arguments and stdio, and ends as it ended (its exit code, or the signal that killed it).
'use strict';

const { spawn } = require('node:child_process');
const os = require('node:os');
const { platformBinary } = require('../lib/binary');

const bin = platformBinary();
if (typeof bin !== 'string') {
  process.stderr.write(`git-llm-apply: ${bin.message}\n`);
  // 2: a broken environment, as the binary itself reports one (DESIGN §2).
  process.exit(2);
}

// A signal sent to the launcher (a harness stopping the tool, a terminal closing) goes to the
// binary, which decides what it means; the launcher waits for it to end.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'].filter(
  (s) => process.platform !== 'win32' || s === 'SIGINT' || s === 'SIGTERM',
);
// Listening starts before the spawn: a signal that comes while the binary is being started
// waits for the listener, instead of ending the launcher and leaving the binary running.
let child = null;
const forward = (signal) => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const s of forwarded) process.on(s, forward);

child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: false });

child.on('error', (err) => {
  process.stderr.write(`git-llm-apply: cannot run ${bin}: ${err.message}\n`);
  process.exit(2);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // End by the same signal, so the caller sees what the binary's caller would have seen.
    for (const s of forwarded) process.removeListener(s, forward);
    // Where a signal cannot end node (SIGPIPE is ignored by node), the shell's 128+N convention.
    process.exitCode = 128 + (os.constants.signals[signal] || 0);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 2 : code);
});
