// The typed API: apply, edit, undo and log run the git-llm-apply binary with --json and resolve to its
// report (types in schema.d.ts, generated from --json-schema); a refusal, bad input or a busy
// work tree rejects with an error carrying the report and the diagnostic text for a model.
'use strict';

const { spawn } = require('node:child_process');
const { findBinary } = require('./lib/binary');

class GitLlmApplyError extends Error {
  constructor(message, { exitCode = null, report = null, stderr = '' } = {}) {
    // A report's own `message` is what the binary prints without --json, where it writes one.
    const own = report && typeof report.message === 'string' && report.message ? report.message : null;
    const diagnostic = own || (report ? describe(report) : message);
    super(diagnostic);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.report = report;
    this.stderr = stderr;
    this.diagnostic = diagnostic;
  }
}
/** Exit 1: nothing was written (no match, ambiguity, conflict, veto, nothing to undo). */
class Refused extends GitLlmApplyError {}
/** Exit 2: bad input or usage (unparseable patch, not a git repository, bad config). */
class InvalidInput extends GitLlmApplyError {}
/** Exit 4: another run held the work tree's lock; nothing was written. Retry. */
class Busy extends GitLlmApplyError {}
/** No binary in this platform's package nor on PATH. */
class BinaryNotFound extends GitLlmApplyError {}
/** An answer that is not a trustworthy report: treated as failure, never as success. */
class ProtocolError extends GitLlmApplyError {}

const BY_EXIT = { 1: Refused, 2: InvalidInput, 4: Busy };

function diagnosticLines(d) {
  const out = [];
  if (d.anchor) out.push(`    anchor: ${d.anchor}`);
  out.push(`    expected (${d.expected_lines} lines):`);
  for (const n of d.expected) out.push(`      ${n.line} | ${n.text}`);
  if (d.closest) {
    const c = d.closest;
    out.push(`    closest in the file (lines ${c.start}-${c.end}, ${c.matched} matching):`);
    for (const n of c.lines) out.push(`      ${n.line} | ${n.text}`);
    for (const diff of c.differences) {
      const where = diff.file_line != null ? `file line ${diff.file_line}` : 'hunk';
      const col = diff.column != null ? `, column ${diff.column}` : '';
      out.push(
        `      differs at ${where}${col} (${diff.kind}): expected ${JSON.stringify(diff.expected)}, ` +
          `file has ${JSON.stringify(diff.actual)}`,
      );
    }
  }
  for (const f of d.findings || []) {
    const extra = Object.entries(f)
      .filter(([k]) => k !== 'kind')
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    out.push(`    finding: ${f.kind}${extra ? ` (${extra})` : ''}`);
  }
  out.push(`    advice: ${d.advice}`);
  return out;
}

/** A report as text: what stopped the run, and per failed hunk what was expected and the advice. */
function describe(report) {
  const lines = [`git llm-apply: ${report.status} (exit ${report.exit_code})`];
  for (const e of report.errors || []) lines.push(`error (${e.kind}): ${e.message}`);
  for (const f of report.files || []) {
    if (f.status === 'applied' || f.status === 'already-applied') continue;
    lines.push(`${f.path}: ${f.status}`);
    for (const p of f.problems || []) lines.push(`  ${p}`);
    for (const h of f.hunks) {
      if (h.status === 'applied' || h.status === 'already-applied') continue;
      lines.push(`  hunk ${h.index}: ${h.status}${h.reason ? `: ${h.reason}` : ''}`);
      if (h.candidates && h.candidates.length) lines.push(`    fits at lines ${h.candidates.join(', ')}`);
      if (h.diagnostic) lines.push(...diagnosticLines(h.diagnostic));
    }
  }
  for (const hook of report.hooks || []) {
    if (hook.status === 'passed') continue;
    lines.push(`hook ${hook.hook}: ${hook.message}`);
    for (const l of hook.stderr.split('\n').filter(Boolean)) lines.push(`  ${l}`);
  }
  return lines.join('\n');
}

function run(args, opts, input) {
  const bin = opts.binary || findBinary();
  if (!bin) {
    return Promise.reject(
      new BinaryNotFound(
        'git-llm-apply not found: no platform package installed and none on PATH ' +
          '(npm install git-llm-apply, or cargo install --locked --path .)',
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-C', opts.repo || '.', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      timeout: opts.timeout,
      signal: opts.signal,
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', (e) => {
      if (e.code === 'ENOENT') reject(new BinaryNotFound(`cannot run ${bin}: ${e.message}`));
      else reject(e);
    });
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === null) {
        reject(new ProtocolError(`git-llm-apply ended by ${signal}: ${stderr.trim()}`, { stderr }));
        return;
      }
      let doc;
      try {
        doc = JSON.parse(Buffer.concat(out).toString('utf8'));
      } catch {
        reject(
          new ProtocolError(`git-llm-apply exited ${code} without a JSON report: ${stderr.trim()}`, {
            exitCode: code,
            stderr,
          }),
        );
        return;
      }
      resolve({ code, doc, stderr });
    });
    // A binary that stops reading early (a parse error) closes the pipe; its report says why.
    child.stdin.on('error', () => {});
    child.stdin.end(input === undefined ? '' : input);
  });
}

function report({ code, doc, stderr }, accept = [0]) {
  if (typeof doc !== 'object' || doc === null || doc.exit_code !== code) {
    throw new ProtocolError(`git-llm-apply exited ${code} but its report says ${doc && doc.exit_code}`, {
      exitCode: code,
      stderr,
    });
  }
  if (accept.includes(code)) return doc;
  const Err = BY_EXIT[code] || GitLlmApplyError;
  throw new Err(`git-llm-apply: ${doc.status}`, { exitCode: code, report: doc, stderr });
}

async function apply(patch, options = {}) {
  const args = ['--json', '--format', options.format || 'auto'];
  if (options.check) args.push('--check');
  if (options.partial) args.push('--partial');
  if (options.index) args.push('--index');
  if (options.snapshot === false) args.push('--no-snapshot');
  if (options.revert) args.push('--revert');
  if (options.verify) args.push('--verify');
  if (options.label != null) args.push('--label', options.label);
  if (options.session != null) args.push('--session', options.session);
  args.push('-');
  return report(await run(args, options, patch), options.partial ? [0, 3] : [0]);
}

async function edit(request, options = {}) {
  if (!request || typeof request.path !== 'string') throw new TypeError('edit() needs a request with a path');
  const args = ['edit', '--json-input', '--json'];
  if (options.check) args.push('--check');
  if (options.snapshot === false) args.push('--no-snapshot');
  if (options.label != null) args.push('--label', options.label);
  if (options.session != null) args.push('--session', options.session);
  return report(await run(args, options, JSON.stringify(request)));
}

async function undo(options = {}) {
  const args = ['undo', '--json'];
  if (options.session != null) args.push('--session', options.session);
  if (options.force) args.push('--force');
  if (options.check) args.push('--check');
  if (options.id != null) args.push(String(options.id));
  return report(await run(args, options));
}

async function log(options = {}) {
  const result = await run(['log', '--json'], options);
  if (result.code === 0 && Array.isArray(result.doc.snapshots)) return result.doc;
  report(result);
  throw new ProtocolError('git-llm-apply log printed no listing', { exitCode: result.code });
}

module.exports = {
  apply,
  edit,
  undo,
  log,
  describe,
  findBinary,
  GitLlmApplyError,
  Refused,
  InvalidInput,
  Busy,
  BinaryNotFound,
  ProtocolError,
};
