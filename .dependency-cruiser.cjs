/**
 * The import rules inside src/ (issue 42, docs/architecture.md "Floors"), counted on run-time imports
 * (`tsPreCompilationDeps: false`: what the compiler keeps; a type-only import is not one). `npm run lint` fails on:
 * - a cycle between files (of src/, api/, admin/, jobs/, http/ and app/);
 * - an import that climbs a floor, or that reaches a module of its own floor (domains of one floor do not know each
 *   other; the kernel's files and the wiring's may import their own floor, without cycles);
 * - a folder of src/ that is on no floor (a new domain is put on one here and in docs/architecture.md).
 * test/unit/dependency-rules.test.ts plants each and expects the lint to report it.
 */

/** src/'s modules from the ground up; a top-level file of src/ is the kernel's unless the wiring names it. */
const FLOORS = [
  { name: 'kernel', folders: ['db', 'mail', 'outbound'] },
  {
    name: 'holdings',
    folders: ['accounts', 'catalogue', 'customers', 'histories', 'idempotency', 'shipping', 'tokens'],
  },
  { name: 'leads', folders: ['auth', 'blocklist', 'leads'] },
  { name: 'orders', folders: ['orders'] },
  { name: 'reactors', folders: ['cash', 'queue', 'sources', 'stats', 'stock', 'transfers', 'webhooks'] },
  { name: 'wiring', files: ['models', 'reactions', 'seed', 'seed-demo', 'services'] },
];
const WIRING_FILES = FLOORS.at(-1).files;

const alt = (names) => names.join('|');
/** The path pattern of one floor's modules. */
function floorPath(floor) {
  if (floor.files) return `^src/(${alt(floor.files)})\\.ts$`;
  if (floor.name === 'kernel') return `^src/((${alt(floor.folders)})/|(?!(${alt(WIRING_FILES)})\\.ts$)[^/]+\\.ts$)`;
  return `^src/(${alt(floor.folders)})/`;
}

const climbs = FLOORS.slice(0, -1).map((floor, i) => ({
  name: 'floor-climb',
  severity: 'error',
  comment: `The ${floor.name} floor imports only from the floors below it (docs/architecture.md, "Floors"): a reaction \
of a floor above is wired in src/reactions.ts, through a domain event.`,
  from: { path: floorPath(floor) },
  to: {
    path: FLOORS.slice(i + 1)
      .map(floorPath)
      .join('|'),
  },
}));

const siblings = FLOORS.filter((f) => f.folders && f.name !== 'kernel' && f.folders.length > 1).map((floor) => ({
  name: 'floor-sibling',
  severity: 'error',
  comment: `The domains of the ${floor.name} floor do not import each other: one of them belongs a floor higher, or \
what they share belongs a floor lower (docs/architecture.md, "Floors").`,
  from: { path: `^src/(${alt(floor.folders)})/` },
  to: { path: `^src/(${alt(floor.folders)})/`, pathNot: '^src/$1/' },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Code imports one way: a cycle ties its modules into one knot (docs/architecture.md, "Floors").',
      from: { path: '^(src|api|admin|jobs|http|app)/' },
      to: { circular: true },
    },
    ...climbs,
    ...siblings,
    {
      name: 'off-the-floors',
      severity: 'error',
      comment:
        'A folder of src/ that is on no floor: put it on one in .dependency-cruiser.cjs and docs/architecture.md.',
      from: { path: '^src/[^/]+/', pathNot: FLOORS.map(floorPath).join('|') },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|data)/' },
  },
};
