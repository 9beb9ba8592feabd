import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';
import { tempDir } from '../support/tempDir.js';

/**
 * A small repository for the search tools, with something for every rule: nested .gitignore
 * files and a negation, hidden files, a `.git` folder, a binary file, a symlink, CRLF, a BOM,
 * UTF-16, a very long line, paths with ':' and '-', and fixed modification times (oldest first in
 * the order listed) so "newest first" has one right answer.
 */
export const FIXTURE_FILES: Record<string, string | Buffer> = {
  '.gitignore': 'dist/\n*.log\n!keep.log\nbuild/\n',
  'src/app.ts': [
    "import { helper } from './util.js';",
    '',
    'export function handler(request: Request) {',
    '  // TODO: validate the request',
    '  const value = helper(request);',
    '  return value;',
    '}',
    '',
    'export const HANDLER_NAME = "handler";',
    '',
  ].join('\n'),
  'src/util.ts': 'export function helper(x: unknown) {\n  return x;\n}\n// todo: more helpers\n',
  'src/view.tsx': 'export const View = () => <div>handler view</div>;\n',
  'src/legacy.js': 'module.exports = function handler() {};\n',
  'src/nested/.gitignore': 'generated.ts\n',
  'src/nested/generated.ts': 'export const generatedHandler = 1; // handler\n',
  'src/nested/real.ts': 'export const realHandler = 2; // handler\n',
  'lib/tool.py': 'def handler(event):\n    """Handle the event."""\n    return event\n',
  'docs/readme.md': '# Handlers\n\nThe handler takes a request.\n\nSee also: HANDLER_NAME.\n',
  'dist/bundle.js': 'function handler(){}\n',
  'app.log': 'handler called\n',
  'keep.log': 'handler kept\n',
  'build/out.ts': 'export const handler = 0;\n',
  '.hidden/secret.ts': 'export const hiddenHandler = "handler";\n',
  '.git/HEAD': 'ref: refs/heads/handler\n',
  'bin/data.bin': Buffer.concat([Buffer.from('handler\n'), Buffer.from([0, 1, 2, 3]), Buffer.from('handler\n')]),
  'notes/crlf.txt': 'first handler line\r\nsecond line\r\nthird handler\r\n',
  'notes/bom.txt': '\ufeffhandler after a BOM\n',
  'notes/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('utf16 handler\n', 'utf16le')]),
  'notes/long.txt': `${'x'.repeat(1500)} handler ${'y'.repeat(1500)}\n`,
  'weird/a:b-1.ts': 'export const colon = "handler:1-2";\n',
  'multi/span.txt': ['struct Config {', '  name: string,', '  handler: Fn,', '}', 'struct Other {', '  x: i32,', '}', ''].join('\n'),
  'multi/context.txt': [
    'one',
    'two',
    'three match',
    'four',
    'five',
    'six',
    'seven match',
    'eight',
    'nine',
    'ten',
    'eleven',
    'twelve match',
    '',
  ].join('\n'),
};

/** Builds the fixture in a fresh temp folder (removed after the test) and returns its path. */
export function makeSearchFixture(): string {
  const root = tempDir('orca-search-');
  const base = Date.UTC(2024, 0, 1) / 1000;
  Object.entries(FIXTURE_FILES).forEach(([rel, content], index) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    utimesSync(file, base + index * 60, base + index * 60);
  });
  // A symlink to a matching file: rg does not follow it, so neither engine lists it.
  symlinkSync('src/app.ts', path.join(root, 'link.ts'));
  return root;
}

/**
 * The JS fallback's worker runs from dist/. `npm test` builds first; a lone `npx vitest run` on a
 * fresh checkout builds here once.
 */
export function ensureBuilt(): void {
  try {
    compiledEntry('shared/tools/search/grepWorker.ts');
  } catch {
    execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  }
}
