import { describeWalk } from './panel-walk.js';

// The panel walk in en (test/e2e/panel-walk.ts): one file per language, so the walks run on parallel shards.
describeWalk(['en'], { checks: true });
