import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * How a server's diagnostics for one file are had once its text is synced:
 * - `tsserver`: asked for (tsserver's syntactic and semantic diagnostics, through the
 *   typescript-language-server's `typescript.tsserverRequest` command). The server's own pushes
 *   cannot be waited for: it sends nothing when a file that had no errors still has none.
 * - `push`: the `textDocument/publishDiagnostics` carrying the synced version (pyright sends one
 *   for every version of an open file, an empty one included).
 */
export type DiagnosticsMode = 'tsserver' | 'push';

/** One kind of language server orca can run: what it serves, how it starts, how it answers. */
export interface LanguageServerSpec {
  id: string;
  /** Its name in notices and results. */
  label: string;
  /** File extensions it serves (lower case, with the dot) and the LSP language id of each. */
  languages: Readonly<Record<string, string>>;
  /** The node script that runs it, from orca's own dependencies; throws when it is not installed. */
  script(): string;
  args: readonly string[];
  initializationOptions(): unknown;
  /** The answer to a `workspace/configuration` item (null: the server's defaults, or the project's config file). */
  configuration(section: string | undefined): unknown;
  diagnostics: DiagnosticsMode;
  /** Its name and version, when the server does not tell them itself. */
  describe?(): string;
}

/** The tsserver orca ships, used when the project has no `typescript` of its own. */
export function shippedTsserver(): string {
  return require.resolve('typescript/lib/tsserver.js');
}

export const TYPESCRIPT_SERVER: LanguageServerSpec = {
  id: 'typescript',
  label: 'TypeScript',
  languages: {
    '.ts': 'typescript',
    '.mts': 'typescript',
    '.cts': 'typescript',
    '.tsx': 'typescriptreact',
    '.js': 'javascript',
    '.mjs': 'javascript',
    '.cjs': 'javascript',
    '.jsx': 'javascriptreact',
  },
  script: () => require.resolve('typescript-language-server/lib/cli.mjs'),
  args: ['--stdio'],
  // The project's own typescript (found from the workspace root up) comes first; orca's only when
  // it has none. No automatic type acquisition: it would run npm and reach the network.
  initializationOptions: () => ({ disableAutomaticTypingAcquisition: true, tsserver: { fallbackPath: shippedTsserver() } }),
  configuration: () => null,
  diagnostics: 'tsserver',
};

export const PYTHON_SERVER: LanguageServerSpec = {
  id: 'python',
  label: 'Python (pyright)',
  languages: { '.py': 'python', '.pyi': 'python' },
  script: () => require.resolve('pyright/langserver.index.js'),
  args: ['--stdio'],
  initializationOptions: () => ({}),
  configuration: () => null,
  diagnostics: 'push',
  describe: () => `pyright ${(require('pyright/package.json') as { version: string }).version}`,
};

export const LANGUAGE_SERVERS: readonly LanguageServerSpec[] = [TYPESCRIPT_SERVER, PYTHON_SERVER];

/** The server of `servers` for a file, by its extension, and the file's language id. */
export function serverForPath(
  servers: readonly LanguageServerSpec[],
  file: string,
): { spec: LanguageServerSpec; languageId: string } | undefined {
  const ext = path.extname(file).toLowerCase();
  for (const spec of servers) {
    const languageId = spec.languages[ext];
    if (languageId) return { spec, languageId };
  }
  return undefined;
}

/**
 * The folders a sandboxed server must be able to read besides the workspace: orca's own
 * dependencies (the servers, the shipped typescript) and node itself. The sandbox's private /tmp
 * would hide them should orca be installed under /tmp.
 */
export function serverReadablePaths(servers: readonly LanguageServerSpec[]): string[] {
  const found = new Set<string>([path.dirname(process.execPath)]);
  for (const script of [...servers.map((spec) => () => spec.script()), shippedTsserver]) {
    let file: string;
    try {
      file = script();
    } catch {
      continue; // not installed: that server is reported missing when it is first needed
    }
    const parts = file.split(path.sep);
    const modules = parts.lastIndexOf('node_modules');
    found.add(modules > 0 ? parts.slice(0, modules + 1).join(path.sep) : path.dirname(file));
  }
  return [...found];
}
