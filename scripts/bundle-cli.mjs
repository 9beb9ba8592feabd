// The CLI as one CommonJS bundle made by esbuild from tsc's entry, run with V8's code cache:
// dist/coordinator/cli.bundle.cjs, and over tsc's dist/coordinator/cli.js an entry of two lines
// that runs it with the code cache each command makes at its first start (shared/core/runtime/cachedBundle.ts).
//
// Why: Node 20 has no compile cache. Bundled as ES modules (a chunk per lazy import), the loaders'
// work per file was gone but V8 still compiled each chunk at each start (38 ms of `orca agent`'s
// 290 before its session, in a CPU profile), and an ES module cannot be given a code cache there.
// One script can: its 6 MB compile in 70 ms without one, 14 ms with it; beside the ES module
// chunks, `orca agent` 455 → 350 ms and `orca run` to its run id 148 → 136 ms, alternating
// (docs/benchmarks.md, "One script with V8's code cache"). The rest of dist/ stays
// tsc's: worker processes, piscina's threads and the proxy relay start from their own files
// (compiledEntry), and the tests import the modules one by one.
//
// What a bundle would move is put back:
// - a module's own location: orca's modules find their prompts, scripts and packages beside them
//   (`import.meta.url`: loadDescription, packageRoot, createRequire), and a few CommonJS packages
//   read files beside theirs (`__dirname`, `__filename`: ioredis its package.json). Each becomes
//   the file the code was bundled from, relative to the bundle, so dist/ and node_modules/ can
//   still be moved together.
// - ES modules are strict: so is the bundle, whose first line says so.
// - packages that start threads or processes from their own files, load native addons or serve
//   their own assets are left to Node: EXTERNAL below, each with its reason. (Those orca loads
//   through createRequire where first used, gray-matter, chrono-node, bash-parser, esbuild never sees.)
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const OUT = path.resolve('dist/coordinator');
const ENTRY = path.join(OUT, 'cli.js');
const BUNDLE = path.join(OUT, 'cli.bundle.cjs');

const EXTERNAL = [
  'msgpackr', // bullmq's: loads its native addon from beside its own file
  'pino', // its transports run in worker threads started from its own files
  'thread-stream',
  'piscina', // starts worker threads from files
  '@bull-board/api', // serves the board's UI from its package folder (ejs templates, static files)
  '@bull-board/hono',
  '@bull-board/ui',
  'ejs',
];

// The bundle's own URL, set by its first line, from which each module's location is written.
const BUNDLE_URL = '__orcaBundleUrl';
const BANNER = `"use strict"; const ${BUNDLE_URL} = require("node:url").pathToFileURL(__filename).href;`;

/** The URL of `file`, written relative to the bundle. */
function ownUrl(file) {
  return `new URL(${JSON.stringify(path.relative(OUT, file).split(path.sep).join('/'))}, ${BUNDLE_URL})`;
}

const ownLocation = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.(c?js|mjs)$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!/import\.meta\.url|\b__dirname\b|\b__filename\b/.test(text)) return undefined;
      const url = ownUrl(args.path);
      const file = `require("node:url").fileURLToPath(${url})`;
      const contents = text
        .replaceAll('import.meta.url', `${url}.href`)
        .replace(/\b__filename\b/g, file)
        .replace(/\b__dirname\b/g, `require("node:path").dirname(${file})`);
      return { contents, loader: 'js' };
    });
  },
};

// zod's `z.locales` holds every language's error messages (370 KB of the 755 KB zod brings, compiled
// at each start: about 10 ms); orca's messages are its own, in English, and zod's default is `en`.
// `z.locales.en` stays; another language is one orca never asks for.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

if (existsSync(BUNDLE)) {
  throw new Error(`${BUNDLE} exists: the entry is bundled already. Run \`npm run build\`, which starts from tsc's.`);
}

await esbuild.build({
  entryPoints: [ENTRY],
  outfile: BUNDLE,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Packages' ES module builds first: a UMD main (jsonc-parser's) requires its parts in a way a bundler cannot follow.
  mainFields: ['module', 'main'],
  external: EXTERNAL,
  plugins: [zodEnglishOnly, ownLocation],
  banner: { js: BANNER },
  // Stack traces map back to orca's TypeScript under --enable-source-maps, through tsc's maps.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'error',
});

// The entry's `#!` line is carried to the bundle's first; the strict mode's directive must be its first
// statement, and the bundle is never run as a program. Emptied, not removed: the source map's lines stay.
const bundled = readFileSync(BUNDLE, 'utf8');
const program = bundled.startsWith('#!') ? bundled.slice(bundled.indexOf('\n')) : bundled;
// ASCII only, so that its entry reads it as latin1: 4 ms for its 6 MB, against 13 to 20 as UTF-8.
// esbuild escapes what is not ASCII in strings and templates (its default charset) but leaves
// comments and regular expressions as written (the test reporters' ✔ and ℹ, the injection
// patterns' Chinese); escaped there a UTF-16 unit at a time, they mean what they meant.
const ascii = program.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(BUNDLE, ascii);
// Named in each cache's file: V8 knows a cache's source only by its length.
const build = createHash('sha256').update(ascii).digest('hex').slice(0, 16);

writeFileSync(
  ENTRY,
  [
    '#!/usr/bin/env node',
    "// orca's CLI: its bundle (scripts/bundle-cli.mjs), run with V8's code cache kept beside it.",
    "import { fileURLToPath } from 'node:url';",
    "import { runCachedBundle } from '../shared/core/runtime/cachedBundle.js';",
    `runCachedBundle(fileURLToPath(new URL('./cli.bundle.cjs', import.meta.url)), '${build}');`,
    '',
  ].join('\n'),
);
chmodSync(ENTRY, 0o755);
// tsc's map was of the entry this one replaces.
rmSync(`${ENTRY}.map`, { force: true });
