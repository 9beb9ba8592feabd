import picomatch from 'picomatch';

/**
 * Which files are tests, and which configure the test runner, for the assertions gate.
 *
 * Tests, by name: `*.test.*`, `*.spec.*`, anything under a `test/`, `tests/`, `__tests__/` or
 * `spec/` folder, `test_*.py`, `*_test.py`, `conftest.py`, `*_test.go`, `*_spec.rb`,
 * `*Test.java|kt`, `*Tests.java|cs`. And by runner config, read from the repository at the
 * commits compared: jest's `testMatch` (package.json `jest` or `jest.config.json`), vitest's and
 * jest's `include`/`testMatch` arrays of string globs in `vitest.config.*`/`vite.config.*`/
 * `jest.config.*`, pytest's `python_files` (pytest.ini, tox.ini, setup.cfg, pyproject.toml), and
 * mocha's `spec` (.mocharc.json/.yml). A config written as code is read for plain string globs
 * only: a glob computed at run time is not seen, and the name patterns still apply.
 *
 * Runner configs (a change there can exclude or skip tests): the files above, plus
 * `vitest.workspace.*`, `playwright.config.*`, `karma.conf.*` and `Cargo.toml`.
 */
export const TEST_FILE_GLOBS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/spec/**',
  '**/test_*.py',
  '**/*_test.py',
  '**/conftest.py',
  '**/*_test.go',
  '**/*_spec.rb',
  '**/*Test.{java,kt}',
  '**/*Tests.{java,cs}',
];

export const RUNNER_CONFIG_GLOBS = [
  '**/package.json',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vite.config.*',
  '**/jest.config.*',
  '**/.mocharc*',
  '**/pytest.ini',
  '**/tox.ini',
  '**/setup.cfg',
  '**/pyproject.toml',
  '**/playwright.config.*',
  '**/karma.conf.*',
  '**/Cargo.toml',
];

export class TestFileMatcher {
  private readonly test: picomatch.Matcher;
  private readonly config: picomatch.Matcher;

  constructor(readonly extraTestGlobs: readonly string[] = []) {
    this.test = picomatch([...TEST_FILE_GLOBS, ...extraTestGlobs.map(anywhere)], { dot: true });
    this.config = picomatch(RUNNER_CONFIG_GLOBS, { dot: true });
  }

  isTest(file: string): boolean {
    return this.test(file);
  }

  isRunnerConfig(file: string): boolean {
    return this.config(file);
  }
}

/** Test globs a runner config names (see above); `file` is its repository path, `text` its content. */
export function testGlobsInConfig(file: string, text: string): string[] {
  const name = file.split('/').at(-1) ?? file;
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  const inDir = (glob: string) => `${dir}${glob.replace(/^<rootDir>\//, '').replace(/^\.\//, '')}`;
  if (name === 'package.json' || name === 'jest.config.json' || /^\.mocharc\.json[c5]?$/.test(name)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return []; // a broken config is the runner's problem; the name patterns still apply
    }
    const record = (value: unknown) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});
    const jest = name === 'package.json' ? record(record(json).jest) : record(json);
    const globs = [...strings(jest.testMatch), ...strings(record(json).spec)];
    return globs.map(inDir);
  }
  if (/^(?:vitest|vite|jest)\.config\.[cm]?[jt]s$/.test(name) || /^vitest\.workspace\./.test(name)) {
    const globs: string[] = [];
    for (const [, list] of text.matchAll(/\b(?:include|testMatch)\s*:\s*\[([^\]]*)\]/g)) {
      for (const [, glob] of list!.matchAll(/['"`]([^'"`]+)['"`]/g)) globs.push(glob!);
    }
    return globs.map(inDir);
  }
  if (/^\.mocharc\.ya?ml$/.test(name)) {
    const spec = /^spec:\s*(.+)$/m.exec(text)?.[1];
    return spec ? [...spec.matchAll(/['"]?([^'",\s[\]]+)['"]?/g)].map((match) => inDir(match[1]!)) : [];
  }
  if (name === 'pytest.ini' || name === 'tox.ini' || name === 'setup.cfg' || name === 'pyproject.toml') {
    const value = /^\s*python_files\s*=\s*(.+)$/m.exec(text)?.[1];
    if (!value) return [];
    return [...value.matchAll(/[^\s"',[\]]+/g)].map((match) => `**/${match[0]}`);
  }
  return [];
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A runner's globs are relative to its root and often start with `**`; a bare name matches anywhere. */
function anywhere(glob: string): string {
  return glob.includes('/') ? glob : `**/${glob}`;
}
