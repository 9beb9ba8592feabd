/**
 * THE rule for which shell commands are checks (tests, builds, type checks, linters): the one
 * place it is defined. The verification layer's evidence recorder and gates use it, and so do
 * compaction's evidence sections and collapse in the context layer.
 *
 * A command is a check when any simple command in it (split on `&&`, `||`, `;`, `|` and new
 * lines; leading `VAR=value`, `cd …`, `timeout N`, `npx`/`pnpm exec`/`yarn`/`bunx` and
 * `node_modules/.bin/` stripped) is one of:
 * - a package script named like a check: `npm|pnpm|yarn|bun [run] test|build|lint|typecheck|check|verify|ci`
 *   (with any `:suffix`, e.g. `npm run test:unit`), `npm t`;
 * - a test runner, compiler or linter run directly: vitest, jest, mocha, ava, tap, playwright test,
 *   cypress run, node --test, tsc, eslint, biome, prettier --check, pytest, python -m pytest|unittest|mypy,
 *   mypy, ruff, flake8, pylint, tox, nox, go test|vet|build, golangci-lint, cargo test|build|check|clippy|nextest,
 *   make [test|check|build|lint|all], gradle/gradlew/mvn test|check|build|verify|package, dotnet test|build,
 *   ctest, rspec, rake test|spec, phpunit, swift test|build, deno test|lint|check, bats.
 * "Passing" means exit code 0 (no signal, no timeout).
 */
const SCRIPT_NAME = /^(?:test|t|build|lint|typecheck|type-check|tsc|check|verify|ci|e2e)(?::[\w:.-]+)?$/;

const DIRECT: Array<{ tool: RegExp; sub?: RegExp }> = [
  {
    tool: /^(?:vitest|jest|mocha|ava|tap|tsc|eslint|biome|pytest|py\.test|mypy|ruff|flake8|pylint|tox|nox|golangci-lint|ctest|rspec|phpunit|bats|tsd)$/,
  },
  { tool: /^playwright$/, sub: /^test$/ },
  { tool: /^cypress$/, sub: /^run$/ },
  { tool: /^prettier$/, sub: /^(?:--check|-c|--list-different|-l)$/ },
  { tool: /^go$/, sub: /^(?:test|vet|build)$/ },
  { tool: /^cargo$/, sub: /^(?:test|build|check|clippy|nextest)$/ },
  { tool: /^(?:gradle|\.\/gradlew|gradlew|mvn|\.\/mvnw|mvnw)$/, sub: /^(?:test|check|build|verify|package)$/ },
  { tool: /^dotnet$/, sub: /^(?:test|build)$/ },
  { tool: /^rake$/, sub: /^(?:test|spec)$/ },
  { tool: /^swift$/, sub: /^(?:test|build)$/ },
  { tool: /^deno$/, sub: /^(?:test|lint|check)$/ },
];

export function isCheckCommand(command: string): boolean {
  return simpleCommands(command).some(isCheckWords);
}

/** Whitespace-normalised, so `npm  test` and `npm test` are the same check. */
export function normalizeCommand(command: string): string {
  return command.replace(/\s+/g, ' ').trim();
}

function simpleCommands(command: string): string[][] {
  return command
    .split(/&&|\|\||[;|\n]/)
    .map((part) =>
      part
        .replace(/[()]/g, ' ')
        .trim()
        .split(/\s+/)
        .filter((word) => word !== ''),
    )
    .filter((words) => words.length > 0);
}

function isCheckWords(input: string[]): boolean {
  let words = [...input];
  // Wrappers that run the real command after them.
  for (;;) {
    const first = words[0] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) words = words.slice(1);
    else if (first === 'cd' || first === 'pushd') return false;
    else if (first === 'timeout' || first === 'time' || first === 'nice' || first === 'env') {
      words = words.slice(1);
      while (words[0] !== undefined && (/^-/.test(words[0]) || /^\d+[smhd]?$/.test(words[0]))) words = words.slice(1);
    } else if (first === 'npx' || first === 'bunx' || first === 'pnpx') {
      words = words.slice(1);
      while (words[0]?.startsWith('-')) words = words.slice(1);
    } else if (
      (first === 'pnpm' || first === 'yarn' || first === 'bun') &&
      (words[1] === 'exec' || words[1] === 'dlx' || words[1] === 'x')
    ) {
      words = words.slice(2);
    } else if (first === 'python' || first === 'python3') {
      if (words[1] === '-m' && /^(?:pytest|unittest|mypy|ruff|flake8|pylint|tox|nox)$/.test(words[2] ?? '')) return true;
      return false;
    } else if (first === 'node' && words.includes('--test')) {
      return true;
    } else break;
  }
  const tool = (words[0] ?? '').replace(/^(?:\.\/)?node_modules\/\.bin\//, '');
  const rest = words.slice(1);
  if (tool === 'npm' || tool === 'pnpm' || tool === 'yarn' || tool === 'bun') {
    const args = rest.filter((word) => !word.startsWith('-'));
    const script = args[0] === 'run' || args[0] === 'run-script' ? args[1] : args[0];
    return script !== undefined && SCRIPT_NAME.test(script);
  }
  if (tool === 'make') {
    const target = rest.find((word) => !word.startsWith('-') && !word.includes('='));
    return target === undefined || /^(?:test|tests|check|build|lint|all|ci|verify)$/.test(target);
  }
  for (const { tool: name, sub } of DIRECT) {
    if (!name.test(tool)) continue;
    if (!sub) return true;
    return rest.some((word) => sub.test(word));
  }
  return false;
}
