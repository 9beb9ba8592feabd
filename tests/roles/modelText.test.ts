import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLES, builtinRole } from '../../roles/builtinRoles.js';
import { formatRoleModelText, roleModelText } from '../../roles/modelText.js';
import { outputSchema } from '../../roles/outputs.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript } from '../../shared/core/model/scriptFile.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { Harness } from '../../shared/harness/harness.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { RecordingModel } from '../context/scriptedSession.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const FIXTURES = path.join(packageRoot(), 'tests', 'fixtures', 'prompts');
const fixture = (role: string) => readFileSync(path.join(FIXTURES, `${role}.txt`), 'utf8');
const REGENERATE =
  'after a deliberate change of the text, regenerate with: npm run build && node dist/coordinator/cli.js prompt --role <role> > tests/fixtures/prompts/<role>.txt';

/**
 * Each rule the model must meet (docs/model-text.md), the roles that must be told it, and the words
 * that teach it, somewhere in what the role's model reads: the system prompt, the tools' texts and
 * schemas, or orca's messages during the session.
 */
const RULES: Array<{ rule: string; roles: string[]; says: string }> = [
  { rule: 'end with Report, not with a text answer', roles: ['*'], says: 'end with the Report tool, never with a text summary' },
  {
    rule: 'a stop without Report is answered once',
    roles: ['*'],
    says: 'You ended without Report: your work is kept only if you call Report now',
  },
  { rule: 'the Report reply says it is being checked', roles: ['*'], says: 'Report received; orca is checking it.' },
  {
    rule: 'claims are checked against the tool log, so claim exactly what ran',
    roles: ['*'],
    says: 'claim each command exactly as you ran it',
  },
  { rule: 'pipes are fine: the check is judged on its own exit code', roles: ['*'], says: "judges the check on its own, not on `tail`'s" },
  { rule: 'after a refusal, do not repeat the same call', roles: ['*'], says: 'do not send the same call again' },
  { rule: 'an essential refused step goes into the Report', roles: ['*'], says: 'if the step is essential, say so in your Report' },
  { rule: 'batch independent calls in one turn', roles: ['*'], says: 'Batch independent calls' },
  { rule: "follow the repository's conventions and libraries", roles: ['*'], says: "Follow the repository's conventions" },
  {
    rule: 'no compatibility shims or re-exports nobody asked for',
    roles: ['*'],
    says: 'no compatibility shims, re-exports or aliases nobody asked for',
  },
  { rule: 'never weaken or skip tests: they are flagged', roles: ['*'], says: 'Never weaken, skip or delete a test' },
  { rule: 'near the end of a budget: run the checks and Report now', roles: ['*'], says: 'run your checks and Report now' },
  { rule: 'at a limit: one last turn to Report in', roles: ['*'], says: 'This is your last turn: call Report now' },
  {
    rule: 'run each named check exactly as written, after the last edit',
    roles: ['worker'],
    says: 'after your last edit, run each check named for your subtask with Bash, exactly as it is written',
  },
  { rule: 'claim each check verbatim', roles: ['worker'], says: 'Claim each check in `claimed_checks` verbatim' },
  { rule: 'a file needed outside the paths goes to unresolved, unedited', roles: ['worker'], says: 'do not edit it' },
  { rule: 'a file needed outside the paths goes to unresolved, unedited (where)', roles: ['worker'], says: 'Put it in `unresolved`' },
  {
    rule: 'scratch files under $TMPDIR: everything left in the worktree is committed',
    roles: ['worker'],
    says: 'Everything left in your worktree is committed and merged',
  },
  { rule: 'workers keep a task list', roles: ['worker'], says: '### TaskCreate' },
  { rule: 'the verification nudge', roles: ['worker'], says: 'nothing shows they were verified' },
  {
    rule: 'the gate refusal says not to send the same report again',
    roles: ['worker', 'verification'],
    says: 'Do not send the same report again unchanged',
  },
  { rule: 'planner: find every use of a changed symbol before cutting', roles: ['plan'], says: 'find every use of it (Grep the symbol' },
  {
    rule: 'planner: a subtask owns the call sites of what it changes, or the others depend on it',
    roles: ['plan'],
    says: 'owns its call sites too; if it cannot, the subtasks that own them depend on it',
  },
  {
    rule: 'planner: every subtask leaves the build and its checks green alone',
    roles: ['plan'],
    says: 'must leave the build and its checks green on its own',
  },
  {
    rule: 'planner: `checks: []` only for a subtask that cannot pass the checks alone',
    roles: ['plan'],
    says: 'Give `checks: []` only for a subtask that cannot pass the checks alone',
  },
  { rule: 'planner: instructions name files, symbols and lines', roles: ['plan'], says: 'name the files, symbols and lines to change' },
  { rule: 'read-only Bash is said to be read-only', roles: ['plan', 'explore'], says: 'your Bash is read-only' },
  {
    rule: 'verification: scratch files by Bash heredoc in $TMPDIR, readable by Read',
    roles: ['verification'],
    says: 'write scratch scripts with a Bash heredoc under `$TMPDIR`',
  },
  {
    rule: 'verification: refactors keep the suite unchanged',
    roles: ['verification'],
    says: 'the existing test suite must pass unchanged',
  },
  {
    rule: 'verification: refactors diff the public API surface',
    roles: ['verification'],
    says: 'the public API surface must be the same. Diff it',
  },
];

describe('orca prompt: what each role’s model is told', () => {
  it.each(BUILTIN_ROLES.map((role) => role.name))('pins the static text of %s byte for byte', (name) => {
    const text = formatRoleModelText(roleModelText(builtinRole(name)!));
    expect(text === fixture(name), `${name}: the text differs from tests/fixtures/prompts/${name}.txt; ${REGENERATE}`).toBe(true);
  });

  it('prints exactly the pinned text from the command line', () => {
    const stdout = execFileSync(
      process.execPath,
      [path.join(packageRoot(), 'dist', 'coordinator', 'cli.js'), 'prompt', '--role', 'worker'],
      {
        encoding: 'utf8',
        cwd: tempDir(),
      },
    );
    expect(stdout === fixture('worker'), REGENERATE).toBe(true);
    const json = JSON.parse(
      execFileSync(process.execPath, [path.join(packageRoot(), 'dist', 'coordinator', 'cli.js'), 'prompt', '--role', 'plan', '--json'], {
        encoding: 'utf8',
        cwd: tempDir(),
      }),
    );
    expect(json).toEqual(JSON.parse(JSON.stringify(roleModelText(builtinRole('plan')!))));
  });

  it.each(RULES.map((rule) => [rule.rule, rule] as const))('teaches: %s', (_name, rule) => {
    const roles = rule.roles.includes('*') ? BUILTIN_ROLES.map((role) => role.name) : rule.roles;
    for (const role of roles) expect(fixture(role), `${role} must be told: ${rule.rule}`).toContain(rule.says);
  });

  it('describes every field of every Report schema', () => {
    for (const role of BUILTIN_ROLES) {
      const report = roleModelText(role).tools.at(-1)!;
      expect(report.name).toBe('Report');
      const undescribed: string[] = [];
      const walk = (schema: Record<string, unknown>, at: string) => {
        const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
        for (const [key, value] of Object.entries(properties)) {
          if (typeof value.description !== 'string' || value.description === '') undescribed.push(`${at}${key}`);
          const items = value.items as Record<string, unknown> | undefined;
          if (items?.properties) walk(items, `${at}${key}[].`);
        }
      };
      walk(report.input_schema, '');
      expect(undescribed, `${role.name}'s Report fields without a description`).toEqual([]);
    }
  });

  it('is what the harness sends: the first system block and the tools of a real session, as dumped', async () => {
    for (const name of ['worker', 'plan']) {
      const role = builtinRole(name)!;
      const script = parseScript({ agents: [{ when: { role: name }, turns: [{ text: 'done' }, { text: 'done' }] }] }, 'test script');
      const model = new RecordingModel(new ScriptedModel(script, { role: name, prompt: 'Do it.' }));
      const harness = new Harness({
        role: { ...role, sandbox: false },
        tools: toolsNamed(role.tools),
        outputSchema: outputSchema(role.output),
        model,
        workspaceRoot: makeRepo({ 'README.md': 'x\n' }),
        workspaceWritable: true,
        sessionDir: path.join(tempDir('orca-session-'), 'session'),
        shellEnv: {},
        stopEvent: 'SubagentStop',
        userClaudeDir: tempDir('orca-claude-'),
        homeDir: tempDir('orca-home-'),
        lsp: { enabled: false },
      });
      await harness.run('Do it.');
      const dumped = roleModelText(role);
      const [first] = model.requests;
      expect(first!.system[0]).toEqual({ text: dumped.system, cache: true });
      expect(first!.tools).toEqual(dumped.tools);
    }
  });
});
