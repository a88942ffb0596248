/** The compiled runtime (`npm run build` → dist/) for tests and benches; nothing here needs the suite's context. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the build reads (tsconfig.build.json's folders, the panel's components, the configs). */
const INPUTS = ['src', 'http', 'api', 'admin', 'jobs', 'app', 'migrations', 'scripts', 'tsconfig.json'];
const INPUT_FILES = ['tsconfig.build.json', 'package.json'];
/** tsc rewrites it at the end of every build, also when no output changed. */
const BUILD_INFO = 'dist/.tsbuildinfo';
export const COMPILED_MAIN = 'dist/app/main.js';
export const COMPILED_CLI = 'dist/scripts/cli.js';
export const PANEL_BUNDLE = 'dist/admin/components-bundle/bundle.js';

function newestMtime(entry: string): number {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

/** True when dist/ holds a build at least as new as every file it was built from. */
export function buildIsFresh(): boolean {
  if (![COMPILED_MAIN, COMPILED_CLI, PANEL_BUNDLE, BUILD_INFO].every((f) => fs.existsSync(f))) return false;
  const built = fs.statSync(BUILD_INFO).mtimeMs;
  return [...INPUTS, ...INPUT_FILES].every((entry) => newestMtime(entry) <= built);
}

/**
 * Runs `npm run build` unless dist/ is fresh (.ci/run builds before the suite; a test then reuses it). Returns how
 * long the build took, or null when it was reused.
 */
export function ensureBuild(): { ms: number } | null {
  if (buildIsFresh()) return null;
  const started = Date.now();
  const result = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8', env: withoutLoader(process.env) });
  if (result.status !== 0)
    throw new Error(`npm run build failed (${result.status}):\n${result.stdout}${result.stderr}`);
  return { ms: Date.now() - started };
}

/** An environment whose Node processes load no TypeScript loader (the suite itself runs with `--import tsx`). */
export function withoutLoader(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...env };
  delete clean.NODE_OPTIONS;
  return clean;
}
