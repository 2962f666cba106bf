// Compiled with `tsc --noEmit --strict` against the installed package: the API's declarations
// and the generated report types type-check as a harness would use them.
import { apply, edit, undo, log, Refused, type Report, type LogReport, type Finding } from 'git-llm-apply';

async function harness(patch: string): Promise<string> {
  try {
    const report: Report = await apply(patch, { repo: '.', check: true, format: 'unified' });
    const lines: Array<number | null | undefined> = report.files.flatMap((f) => f.hunks.map((h) => h.line));
    return `${report.status} ${lines.join(',')} ${report.snapshot ?? ''}`;
  } catch (e) {
    if (e instanceof Refused && e.report) {
      const findings: Finding[] = e.report.files.flatMap((f) => f.hunks.flatMap((h) => h.diagnostic?.findings ?? []));
      const ambiguous = findings.filter((f): f is Extract<Finding, { kind: 'ambiguous' }> => f.kind === 'ambiguous');
      return `${e.diagnostic} ${ambiguous.map((f) => f.lines.length).join(',')}`;
    }
    throw e;
  }
}

async function history(): Promise<number[]> {
  const listing: LogReport = await log({ repo: '.' });
  await undo({ id: listing.snapshots[0]?.id, repo: '.' });
  return listing.snapshots.map((s) => s.id);
}

async function rename(): Promise<string> {
  const one: Report = await edit({ path: 'a.py', old_string: 'x', new_string: 'y', replace_all: true });
  const many: Report = await edit({ path: 'a.py', edits: [{ old_string: 'a', new_string: 'b' }] }, { check: true });
  return `${one.status} ${many.status}`;
}

export { harness, history, rename };
