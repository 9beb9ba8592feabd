import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { CLAUDE_CODE_ONLY_EVENTS, HOOK_EVENTS } from '../shared/policy/hooks/hookEvents.js';
import { CLAUDE_CODE_VERSION, greetingTurns, installClaudeCode, sideBySideStandIn } from '../tests/support/claudeCodeTask.js';
import { makeRepo } from '../tests/support/gitRepo.js';
import { describeFields, type FieldTable, fieldTable } from '../tests/support/hookFields.js';
import { OrcaTestEnv } from '../tests/support/orcaEnv.js';
import { tempDir } from '../tests/support/tempDir.js';

/**
 * Claude Code and orca side by side: the pinned Claude Code from the npm registry and `orca agent`
 * on the same repository, the same catch-all hooks dumping their stdin, the same scripted turns
 * (Read, Edit, Bash, then the final answer) from a local Messages stand-in. The field names and
 * types of both sides' hook inputs are written to docs/hook-input-vs-claude-code.md, and Claude Code's
 * to tests/fixtures/claudeCode/hookFields.json, which `npm test` holds orca's hook inputs against.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

function dumpedInputs(file: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function projectFor(dump: string, events: readonly string[]): string {
  const hooks = Object.fromEntries(
    events.map((event) => [event, [{ hooks: [{ type: 'command', command: `{ cat; echo; } >> '${dump}'` }] }]]),
  );
  return makeRepo({
    'greet.txt': 'hello\nworld\n',
    '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Bash(echo:*)', 'Edit', 'Read'] }, hooks }, null, 2),
  });
}

/** The four turns, for a repository at `repo`: orca's agent works in a worktree of it and names the file from its root. */
function turns(repo: string, final: 'text' | 'report') {
  return greetingTurns(final === 'text' ? path.join(repo, 'greet.txt') : 'greet.txt', final);
}

it('Claude Code and orca send hooks the same fields', async () => {
  const work = tempDir('orca-compat-');
  const claude = await installClaudeCode(path.join(work, 'claude-code'));

  // Claude Code.
  const ccDump = path.join(work, 'claude-code-hooks.jsonl');
  const ccEvents = [...HOOK_EVENTS, ...CLAUDE_CODE_ONLY_EVENTS];
  const ccRepo = projectFor(ccDump, ccEvents);
  const ccServer = sideBySideStandIn();
  const ccUrl = await ccServer.start();
  ccServer.enqueue(...turns(ccRepo, 'text'));
  const home = path.join(work, 'home');
  mkdirSync(home, { recursive: true });
  const cc = await run(
    claude,
    ['-p', 'Change world to there in greet.txt, then echo done.', '--permission-mode', 'acceptEdits', '--output-format', 'json'],
    {
      cwd: ccRepo,
      env: {
        ...process.env,
        HOME: home,
        CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
        ANTHROPIC_BASE_URL: ccUrl,
        ANTHROPIC_API_KEY: 'sk-ant-compat',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    },
  );
  await ccServer.close();
  expect(cc.code, `${cc.stdout}\n${cc.stderr}`).toBe(0);
  expect(readFileSync(path.join(ccRepo, 'greet.txt'), 'utf8')).toBe('hello\nthere\n');

  // orca.
  const env = await OrcaTestEnv.open({ shared: true });
  const orcaDump = path.join(work, 'orca-hooks.jsonl');
  const orcaRepo = projectFor(orcaDump, HOOK_EVENTS);
  const orcaServer = sideBySideStandIn();
  const orcaUrl = await orcaServer.start();
  orcaServer.enqueue(...turns(orcaRepo, 'report'));
  const agent = await env.cli(
    ['agent', '--role', 'worker', 'Change world to there in greet.txt, then echo done.', '--repo', orcaRepo, '--json'],
    {
      env: { ANTHROPIC_BASE_URL: orcaUrl, ANTHROPIC_API_KEY: 'sk-ant-compat' },
      deadlineMs: 300_000,
    },
  );
  await orcaServer.close();
  await env.close();
  expect(agent.code, agent.stderr).toBe(0);

  const ccTable = fieldTable(dumpedInputs(ccDump));
  const orcaTable = fieldTable(dumpedInputs(orcaDump));
  const fixture = path.join(ROOT, 'tests', 'fixtures', 'claudeCode', 'hookFields.json');
  mkdirSync(path.dirname(fixture), { recursive: true });
  writeFileSync(fixture, `${JSON.stringify({ claude_code_version: CLAUDE_CODE_VERSION, events: ccTable }, null, 2)}\n`);
  writeFileSync(path.join(ROOT, 'docs', 'hook-input-vs-claude-code.md'), report(ccTable, orcaTable));
});

function report(cc: FieldTable, orca: FieldTable): string {
  const lines = [
    '# Hook input: Claude Code and orca, field by field',
    '',
    `Written by \`npm run compat:claude-code\`: Claude Code ${CLAUDE_CODE_VERSION} (\`claude -p\`, from the npm registry) and`,
    '`orca agent --role worker` on the same repository, with the same catch-all hooks dumping their stdin',
    'and the same scripted turns from a local Messages stand-in (Read, Edit, Bash, then the final answer).',
    'Do not edit: rerun the check.',
    '',
    '| event | field | Claude Code | orca |',
    '| --- | --- | --- | --- |',
  ];
  const events = [...new Set([...Object.keys(cc), ...Object.keys(orca)])].sort();
  for (const event of events) {
    const fields = [...new Set([...Object.keys(cc[event] ?? {}), ...Object.keys(orca[event] ?? {})])].sort();
    for (const field of fields) {
      const a = cc[event]?.[field];
      const b = orca[event]?.[field];
      if (a === b) continue;
      lines.push(`| ${event} | \`${field}\` | ${a ?? '—'} | ${b ?? '—'} |`);
    }
  }
  lines.push('', 'Rows are only the differences; `—`: the side does not send it (or does not fire the event).', '');
  lines.push(...describeFields(cc, orca));
  return `${lines.join('\n')}\n`;
}
