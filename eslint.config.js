// ESLint (typescript-eslint) for the whole tree. The layer rule below is the architecture's one-way dependency rule
// (docs/architecture.md): breaking it fails `npm run lint`, and `.ci/run` runs it.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

/** A relative import that reaches into one of these top-level folders. */
const into = (...folders) => `^\\.{1,2}/(?:\\.\\./)*(?:${folders.join('|')})/`;

/** Which top-level folder may not import which: src/ is the core, app/ is the only composition root. */
const layers = [
  {
    files: ['src/**'],
    regex: into('app', 'http', 'api', 'admin', 'jobs', 'scripts'),
    message: 'src/ imports no entry point.',
  },
  {
    files: ['http/**'],
    regex: into('app', 'api', 'admin', 'jobs', 'scripts'),
    message: 'http/ is shared by api/ and admin/; it imports neither.',
  },
  {
    files: ['api/**'],
    regex: into('app', 'admin', 'jobs', 'scripts'),
    message: 'api/ and admin/ do not import each other; shared HTTP code lives in http/.',
  },
  {
    files: ['admin/**'],
    regex: into('app', 'api', 'jobs', 'scripts'),
    message: 'api/ and admin/ do not import each other; shared HTTP code lives in http/.',
  },
  {
    files: ['jobs/**'],
    regex: into('app', 'http', 'api', 'admin', 'scripts'),
    message: 'jobs/ call services; they import no HTTP code.',
  },
];

/** Frameworks stay at the edges: the core (src/) builds no HTTP server, panel or job queue. */
const frameworks = `^(${[
  'express',
  'express-.*',
  'adminjs',
  '@adminjs/.*',
  'agenda',
  '@agendajs/.*',
  'passport',
  'passport-.*',
  'helmet',
  'multer',
  'connect-session-sequelize',
  'csrf-csrf',
  'cookie-parser',
].join('|')})$`;

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'dist/**',
      '.adminjs/**',
      'test-artifacts/**',
      'admin/components/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS where a tool loads with require() (mocha's reporters: test/timing-reporter.cjs)
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts', '**/*.js'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off', // a few third-party shapes (AdminJS, Agenda job data) are untyped
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Prettier wraps code at 120; strings, SQL and comments it cannot wrap are held to the same width here.
    files: ['**/*.ts', '**/*.js'],
    ignores: ['test/**', 'migrations/**'],
    plugins: { '@stylistic': stylistic },
    rules: { '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true }] },
  },
  {
    // Small modules (issue 18): a file reads in one sitting, a function fits on a screen. Blank lines and comments are
    // not counted. Tests, migrations and benchmarks are scripts of their own and are not held to it.
    files: ['**/*.ts', '**/*.js'],
    ignores: ['test/**', 'migrations/**', 'bench/**'],
    rules: {
      'max-lines': ['error', { max: 250, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  ...layers.map(({ files, regex, message }) => ({
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex, message: `${message} (docs/architecture.md)` },
            ...(files[0] === 'src/**' ? [{ regex: frameworks, message: 'src/ uses no web or job framework.' }] : []),
          ],
        },
      ],
    },
  })),
);
