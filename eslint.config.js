// ESLint (typescript-eslint) for the whole tree. The layer rule below is the architecture's one-way dependency rule
// (docs/architecture.md): breaking it fails `npm run lint`, and `.ci/run` runs it.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Which top-level folder may not import which: src/ is the core, app/ is the only composition root. */
const zones = [
  {
    target: './src',
    from: ['./app', './http', './api', './admin', './jobs', './scripts'],
    message: 'src/ imports no entry point (docs/architecture.md).',
  },
  {
    target: './http',
    from: ['./app', './api', './admin', './jobs', './scripts'],
    message: 'http/ is shared by api/ and admin/; it imports neither.',
  },
  {
    target: './api',
    from: ['./app', './admin', './jobs', './scripts'],
    message: 'api/ and admin/ do not import each other; shared HTTP code lives in http/.',
  },
  {
    target: './admin',
    from: ['./app', './api', './jobs', './scripts'],
    message: 'api/ and admin/ do not import each other; shared HTTP code lives in http/.',
  },
  {
    target: './jobs',
    from: ['./app', './http', './api', './admin', './scripts'],
    message: 'jobs/ call services; they import no HTTP code.',
  },
];

/** Frameworks stay at the edges: the core (src/) builds no HTTP server, panel or job queue. */
const frameworks = [
  'express',
  'express-*',
  'adminjs',
  '@adminjs/*',
  'agenda',
  '@agendajs/*',
  'passport',
  'passport-*',
  'helmet',
  'multer',
  'connect-session-sequelize',
  'csrf-csrf',
  'cookie-parser',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'admin/components/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js'],
    plugins: { 'import-x': importX },
    // `./x.js` in an import names `./x.ts`: the TypeScript resolver finds it, so the layer rule sees every import
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver()] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
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
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: frameworks,
              message: 'src/ uses no web or job framework; it belongs in http/, api/, admin/, jobs/ or app/.',
            },
          ],
        },
      ],
    },
  },
);
