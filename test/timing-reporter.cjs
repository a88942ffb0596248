// mocha's spec reporter, plus a JSON record of the run for test/run.ts: each file's wall time (its top-level suites,
// hooks included) and each test's full title, state and duration. Written to TEST_REPORT_FILE when it is set.
// CommonJS because mocha loads reporters with require().
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } =
  Mocha.Runner.constants;

class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = process.env.TEST_REPORT_FILE;
    if (!out) return;
    const started = Date.now();
    const files = new Map(); // file → { ms, tests: [] }
    const fileOf = (file) => {
      const rel = path.relative(process.cwd(), file ?? '(root)');
      if (!files.has(rel)) files.set(rel, { ms: 0, tests: [] });
      return files.get(rel);
    };
    const begun = new Map(); // top-level suite → start time
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.parent && suite.parent.root) begun.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (begun.has(suite)) fileOf(suite.file).ms += Date.now() - begun.get(suite);
    });
    const record = (state) => (test, err) => {
      const entry = { title: test.fullTitle(), state, ms: test.duration ?? 0 };
      if (state === 'failed' && err) entry.error = String(err.message ?? err).slice(0, 2000);
      // a hook that failed is reported as a failed "test" (`"before all" hook …`); its file is its suite's
      fileOf(test.file ?? test.parent?.file).tests.push(entry);
    };
    runner.on(EVENT_TEST_PASS, record('passed'));
    runner.on(EVENT_TEST_FAIL, record('failed'));
    runner.on(EVENT_TEST_PENDING, record('skipped'));
    runner.once(EVENT_RUN_END, () => {
      const report = {
        wallMs: Date.now() - started,
        files: Object.fromEntries([...files].map(([f, v]) => [f, v])),
      };
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, JSON.stringify(report, null, 1));
    });
  }
}

module.exports = TimingReporter;
