// Types of the API in index.js; the report types are generated in schema.d.ts.
import type { LogReport, Report } from './schema';

export * from './schema';

/** Options every call takes. */
export interface CommonOptions {
  /** The work tree to run in (`-C`); default the current directory. */
  repo?: string;
  /** The binary to run; default this platform's package, then PATH. */
  binary?: string;
  /** Variables added to the environment of the binary. */
  env?: Record<string, string>;
  /** Milliseconds before the binary is killed (the call then rejects). */
  timeout?: number;
  signal?: AbortSignal;
}

export interface ApplyOptions extends CommonOptions {
  /** Plan everything, write nothing. */
  check?: boolean;
  format?: 'auto' | 'unified' | 'codex' | 'search-replace';
  /** Keep what applied when other files fail; the call then resolves to a `partial` report. */
  partial?: boolean;
  /** Also stage the result. */
  index?: boolean;
  /** `false`: record no ghost snapshot (the apply cannot be undone). */
  snapshot?: boolean;
  /** Apply the patch in reverse. */
  revert?: boolean;
  /** Roll the apply back when the post-llm-apply hook fails. */
  verify?: boolean;
  label?: string;
  session?: string;
}

/** One replacement: `old_string` found exactly once (or every time, with `replace_all`). */
export interface EditItem {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** What `git llm-apply edit --json-input` reads: one edit of `path`, or several in order. */
export type EditRequest = ({ path: string } & EditItem) | { path: string; edits: EditItem[] };

export interface EditOptions extends CommonOptions {
  check?: boolean;
  snapshot?: boolean;
  label?: string;
  session?: string;
}

export interface UndoOptions extends CommonOptions {
  /** A `log` id or `refs/llm-apply/N`; default the newest apply. */
  id?: number | string;
  /** Undo every apply of this session. */
  session?: string;
  force?: boolean;
  check?: boolean;
}

/** Apply a unified diff, Codex patch or SEARCH/REPLACE blocks; rejects unless it all applied. */
export function apply(patch: string | Uint8Array, options?: ApplyOptions): Promise<Report>;
/** A structured edit, as agents' edit tools send it; all or nothing; rejects unless it applied. */
export function edit(request: EditRequest, options?: EditOptions): Promise<Report>;
/** Roll back an apply; rejects with `Refused` when there is nothing to undo. */
export function undo(options?: UndoOptions): Promise<Report>;
/** The recorded applies, newest first. */
export function log(options?: CommonOptions): Promise<LogReport>;
/** A report as the text a model reads: errors, and per failed hunk what was expected and the advice. */
export function describe(report: Report): string;
/** The binary the API runs, or null. */
export function findBinary(): string | null;

export class GitLlmApplyError extends Error {
  /** The binary's exit status (DESIGN §2), when it ran. */
  readonly exitCode: number | null;
  /** Its `--json` report, when it printed one. */
  readonly report: Report | null;
  readonly stderr: string;
  /** The text to show a model so it can fix its patch. */
  readonly diagnostic: string;
}
export class Refused extends GitLlmApplyError {}
export class InvalidInput extends GitLlmApplyError {}
export class Busy extends GitLlmApplyError {}
export class BinaryNotFound extends GitLlmApplyError {}
export class ProtocolError extends GitLlmApplyError {}
