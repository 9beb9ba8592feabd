// The CLI's entry as one ES module graph bundled by esbuild, written over tsc's
// dist/coordinator/cli.js, its lazily imported parts as chunks in dist/coordinator/cli-chunks/.
//
// Why: Node 20 has no compile cache, and the loaders' work per file (resolve, read, link) was a
// measured share of the CLI's start: `orca run` loaded 66 of orca's files, commander and zod's 95
// before its run id; `orca agent` about 370 and bullmq and ioredis as CommonJS. Bundled: `orca run`
// to its run id 273 → 234 ms, `orca agent` 939 → 740 ms (docs/benchmarks.md, "The CLI as one
// bundle"). The rest of dist/ stays tsc's: worker processes, piscina's threads and the proxy
// relay start from their own files (compiledEntry), and the tests import the modules one by one.
//
// What a bundle would move is put back:
// - a module's own location: orca's modules find their prompts, scripts and packages beside them
//   (`import.meta.url`: loadDescription, packageRoot, createRequire), and a few CommonJS packages
//   read files beside theirs (`__dirname`, `__filename`: ioredis its package.json). Each becomes
//   the file the code was bundled from, relative to the chunk it lands in, so dist/ and
//   node_modules/ can still be moved together.
// - packages that start threads or processes from their own files, load native addons or serve
//   their own assets are left to Node: EXTERNAL below, each with its reason. (Those orca loads
//   through createRequire where first used, gray-matter, chrono-node, bash-parser, esbuild never sees.)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const OUT = path.resolve('dist/coordinator');
const ENTRY = path.join(OUT, 'cli.js');
const CHUNKS = 'cli-chunks';

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

// Each output file's own URL, set by the banner: a CommonJS module must not name `import.meta`
// (esbuild would take it for an ES module and drop its `exports`).
const CHUNK_URL = '__orcaChunkUrl';
const BANNER = [
  "import { createRequire as __orcaRequire } from 'node:module';",
  // Bundled CommonJS packages call require() for Node's own modules.
  'const require = __orcaRequire(import.meta.url);',
  `const ${CHUNK_URL} = import.meta.url;`,
].join(' ');

/** The URL of `file`, written relative to the output file the code lands in (the entry, or a chunk one folder down). */
function ownUrl(file) {
  const from = (dir) => JSON.stringify(path.relative(dir, file).split(path.sep).join('/'));
  const relative = `${CHUNK_URL}.includes("/${CHUNKS}/") ? ${from(path.join(OUT, CHUNKS))} : ${from(OUT)}`;
  return `new URL(${relative}, ${CHUNK_URL})`;
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

if (existsSync(path.join(OUT, CHUNKS))) {
  throw new Error(`${path.join(OUT, CHUNKS)} exists: the entry is bundled already. Run \`npm run build\`, which starts from tsc's.`);
}

await esbuild.build({
  entryPoints: [ENTRY],
  outdir: OUT,
  allowOverwrite: true,
  entryNames: '[name]',
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  bundle: true,
  splitting: true,
  format: 'esm',
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
