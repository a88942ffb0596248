/**
 * The import rule inside src/ (issue 42, docs/architecture.md): no import cycle between files of src/, counted on
 * run-time imports (`tsPreCompilationDeps: false`: what the compiler keeps; a type-only import is not one). None exists
 * today; `npm run lint` fails on the first. The cycle between src/'s top-level modules (folders) is issue 42's, not
 * yet this rule's. test/unit/dependency-rules.test.ts plants a cycle and expects the rule to report it.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'src/ imports one way: a cycle ties its modules into one knot (docs/architecture.md, "Floors").',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|data)/' },
  },
};
