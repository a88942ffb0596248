/**
 * The second step of `npm run build`, run compiled (node dist/scripts/bundle-panel.js) after tsc: bundles the panel's
 * React components (admin/components/*.tsx, with chart.js) for the browser with AdminJS's own bundler (rollup +
 * babel, what @adminjs/bundler also calls), into the folder the compiled panel serves them from. A production start
 * then bundles nothing, loads no rollup or babel, and writes nothing under dist/. Skipped when the bundle is newer
 * than its sources.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PREBUILT_BUNDLE_DIR, addComponentSources } from '../admin/panel-components.js';

// dist/scripts/ (or scripts/, run from the sources by the test runner) → the repository, whose admin/components/ holds
// the sources.
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, path.basename(path.dirname(HERE)) === 'dist' ? '../..' : '..');
const SOURCES_DIR = path.join(ROOT, 'admin', 'components');
// The folder: the build's, or the one named on the command line (the test runner's shared bundle, test/run.ts).
const OUT_DIR = process.argv[2] ? path.resolve(process.argv[2]) : PREBUILT_BUNDLE_DIR;
const BUNDLE = path.join(OUT_DIR, 'bundle.js');

const mtime = (file: string) => fs.statSync(file).mtimeMs;

function upToDate(): boolean {
  if (!fs.existsSync(BUNDLE)) return false;
  const inputs = [
    // the registered components and what they import (the palette, shared parts)
    ...fs.readdirSync(SOURCES_DIR).map((file) => path.join(SOURCES_DIR, file)),
    path.join(ROOT, 'node_modules', 'chart.js', 'package.json'),
    path.join(ROOT, 'node_modules', 'adminjs', 'package.json'),
  ];
  return inputs.every((file) => mtime(file) < mtime(BUNDLE));
}

async function bundle(): Promise<void> {
  // AdminJS reads these when its modules load: a minified bundle, written where the compiled panel looks for it.
  process.env.NODE_ENV = 'production';
  process.env.ADMIN_JS_SKIP_BUNDLE = 'false';
  process.env.ADMIN_JS_TMP_DIR = OUT_DIR;
  const { default: AdminJS, ComponentLoader } = await import('adminjs');
  const componentLoader = new ComponentLoader();
  addComponentSources(componentLoader, SOURCES_DIR);
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  const started = Date.now();
  await new AdminJS({ componentLoader }).initialize();
  // The entry AdminJS generated names the sources by relative paths; only the bundle is served.
  fs.rmSync(path.join(OUT_DIR, 'entry.js'), { force: true });
  const size = Math.round(fs.statSync(BUNDLE).size / 1024);
  process.stdout.write(`panel components bundled: ${BUNDLE} (${size} KiB, ${Date.now() - started} ms)\n`);
}

if (upToDate()) process.stdout.write(`panel components bundle is up to date: ${BUNDLE}\n`);
else await bundle();
