import type { File, Reporter, Task } from 'vitest';

/**
 * Prints the slowest files, then one plain closing line, `Tests: N passed, N failed, N skipped`, that any CI can read.
 */
export default class SummaryReporter implements Reporter {
  onFinished(files: File[] = []) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const visit = (task: Task) => {
      if ('tasks' in task) {
        for (const t of task.tasks) visit(t);
        return;
      }
      const state = task.result?.state;
      if (state === 'pass') counts.passed++;
      else if (state === 'fail') counts.failed++;
      else counts.skipped++;
    };
    for (const f of files) {
      // A file that failed to load has no tests to count: it counts as one failure.
      if (f.result?.state === 'fail' && f.tasks.length === 0) counts.failed++;
      visit(f);
    }
    // The slowest files, where CI's time goes (the suite must stay within .ci/run's 45 minutes).
    const slowest = files
      .map((f) => ({ name: f.filepath.replace(`${process.cwd()}/`, ''), ms: f.result?.duration ?? 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 15);
    if (files.length > 15) {
      console.log('\nSlowest files:');
      for (const f of slowest) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name}`);
    }
    console.log(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
