import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in: vitest's own (failed first, then longest first by the last run's
 * durations, or largest first when it has none), with the files that start processes, browsers or
 * whole flows moved ahead of the rest. A fresh clone (CI) has no durations, and with two workers
 * a two-minute flow that happens to start last leaves one worker alone for its length
 * (docs/performance.md, "Fifth round: two workers…").
 */
const SLOW =
  /\/test\/e2e\/|\.e2e\.test\.ts$|\.browser\.test\.ts$|\/cli-set-password\.test\.ts$|\/src\/dte\/conformance\.test\.ts$|\/src\/db\/(pglite-reopen|dir-lock)\.test\.ts$/;

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (f: TestSpecification) => SLOW.test(f.moduleId);
    // Stable within each project (vitest's order groups projects; keep that grouping).
    const out: TestSpecification[] = [];
    for (let i = 0; i < sorted.length;) {
      let j = i;
      while (j < sorted.length && sorted[j]!.project.name === sorted[i]!.project.name) j++;
      const group = sorted.slice(i, j);
      out.push(...group.filter(slow), ...group.filter((f) => !slow(f)));
      i = j;
    }
    return out;
  }
}
