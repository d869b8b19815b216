// A Jest reporter that `npm test` adds beside the default one: at the end of a run, one line per
// project (unit, medium, e2e, browser) with its spec files, tests, failures, its wall time (from its
// first spec's start to its last spec's end; projects run side by side overlap) and the sum of its
// specs' own times, then the five slowest spec files of the run.
'use strict';

class ProjectTimes {
  constructor() {
    this.projects = new Map();
    this.files = [];
  }

  onTestResult(test, result) {
    const name = test.context.config.displayName?.name ?? test.context.config.displayName ?? 'default';
    const p = this.projects.get(name) ?? { files: 0, tests: 0, failed: 0, start: Infinity, end: 0, sum: 0 };
    const { start, end } = result.perfStats;
    p.files++;
    p.tests += result.numPassingTests + result.numFailingTests + result.numPendingTests + (result.numTodoTests ?? 0);
    p.failed += result.numFailingTests + (result.testExecError ? 1 : 0);
    p.start = Math.min(p.start, start);
    p.end = Math.max(p.end, end);
    p.sum += end - start;
    this.projects.set(name, p);
    this.files.push({ name, file: require('node:path').relative(process.cwd(), test.path), ms: end - start });
  }

  onRunComplete() {
    if (!this.projects.size) return;
    const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
    const lines = ['', 'time by project:'];
    for (const [name, p] of this.projects)
      lines.push(
        `  ${name.padEnd(8)} ${String(p.files).padStart(4)} files ${String(p.tests).padStart(5)} tests${p.failed ? ` (${p.failed} failed)` : ''}   wall ${s(p.end - p.start).padStart(8)}   specs' own times summed ${s(p.sum).padStart(8)}`,
      );
    lines.push('slowest spec files:');
    for (const f of [...this.files].sort((a, b) => b.ms - a.ms).slice(0, 5))
      lines.push(`  ${s(f.ms).padStart(8)}  ${f.name.padEnd(8)} ${f.file}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    // TEST_TIMES_FILE=<file>: every spec file's time appended to it, a JSON line each (for finding what to make cheaper).
    if (process.env.TEST_TIMES_FILE)
      require('node:fs').appendFileSync(process.env.TEST_TIMES_FILE, this.files.map((f) => `${JSON.stringify(f)}\n`).join(''));
  }
}

module.exports = ProjectTimes;
