import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript } from '../../shared/core/model/scriptFile.js';
import { Harness } from '../../shared/harness/harness.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { createDiagnosticsReminder } from '../../shared/tools/lsp/diagnosticsReminder.js';
import type { LanguageServerSpec } from '../../shared/tools/lsp/languageServers.js';
import { PYTHON_SERVER, TYPESCRIPT_SERVER } from '../../shared/tools/lsp/languageServers.js';
import { makeRepo } from '../support/gitRepo.js';
import { processesMatching, processesWorkingIn, waitForNoProcess } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

const FILES = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true },
  }),
  'package.json': JSON.stringify({ name: 'fixture', type: 'module' }),
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts': "import { add } from './math.js';\n\nexport const total: number = add(1, 2);\n",
};

const BREAK = { file_path: 'src/main.ts', old_string: 'add(1, 2)', new_string: 'add(1, 2) + multiply(2, 3)' };
const FIX = { file_path: 'src/main.ts', old_string: 'add(1, 2) + multiply(2, 3)', new_string: 'add(1, 2) + add(2, 3)' };
const REPORT = { summary: 'total now adds more', unresolved: [], claimed_checks: [] };

function worker(turns: unknown[], options: { servers?: LanguageServerSpec[] } = {}) {
  const repo = makeRepo(FILES);
  const role = builtinRole('worker')!;
  const model = new ScriptedModel(parseScript({ agents: [{ when: { role: 'worker' }, turns }] }, 'the test script'), {
    role: 'worker',
    prompt: 'change total',
  });
  const harness = new Harness({
    role: { ...role, sandbox: true },
    tools: toolsNamed(role.tools),
    outputSchema: outputSchema(role.output),
    model,
    workspaceRoot: repo,
    workspaceWritable: true,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    shellEnv: {},
    stopEvent: 'Stop',
    userClaudeDir: tempDir('orca-claude-'),
    homeDir: tempDir('orca-home-'),
    stopChecks: [createDiagnosticsReminder()],
    lsp: { enabled: true, ...(options.servers ? { servers: options.servers } : {}) },
  });
  return { repo, harness };
}

function toolResults(events: AgentEvent[]): string[] {
  return events.filter((e) => e.type === 'tool_result').map((e) => (e as { preview: string }).preview);
}

describe('language servers in a whole agent session', () => {
  it('run in the sandbox while the agent works, report the new error in the Edit result, send back a Report that leaves it, and are gone when the agent ends', async () => {
    const { repo, harness } = worker([
      { tools: [{ name: 'Read', input: { file_path: 'src/main.ts' } }] },
      { tools: [{ name: 'Edit', input: BREAK }] },
      { tools: [{ name: 'Report', input: REPORT }] },
      { tools: [{ name: 'Edit', input: FIX }] },
      { tools: [{ name: 'Report', input: REPORT }] },
    ]);
    expect(harness.sandboxed).toBe(true);
    const seen: { inWorkspace: number[]; sandboxes: number }[] = [];
    const result = await harness.run('change total', (event) => {
      if (event.type === 'tool_result' && event.name === 'Edit') {
        seen.push({ inWorkspace: processesWorkingIn(repo), sandboxes: processesMatching(`--chdir ${repo} -- bash -c exec`).length });
      }
    });
    expect(result.reason).toBe('report');

    const messages = harness.session.messages.flatMap((m) =>
      m.content.map((block) => ('content' in block ? String(block.content) : 'text' in block ? block.text : '')),
    );
    const brokenResult = messages.find((text) => text.startsWith('Edited src/main.ts') && text.includes('[diagnostics]'));
    expect(brokenResult).toContain("src/main.ts:3:42 Cannot find name 'multiply'. [ts 2304]");
    const reminder = messages.find((text) => text.includes('still reports errors that your edits brought'));
    expect(reminder).toContain("src/main.ts:3:42 Cannot find name 'multiply'. [ts 2304]");
    // The fix: its result has no diagnostics, and the second Report is accepted.
    expect(messages.filter((text) => text.startsWith('Edited src/main.ts')).at(-1)).not.toContain('[diagnostics]');

    // While the agent worked, the server and its tsserver ran in the workspace, inside bwrap.
    expect(seen).toHaveLength(2);
    expect(seen[0]!.inWorkspace.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]!.sandboxes).toBeGreaterThanOrEqual(1);
    // After the agent: none of them is left.
    expect(processesWorkingIn(repo)).toEqual([]);
    expect(await waitForNoProcess(`--chdir ${repo} -- bash -c exec`, 1)).toEqual([]);
  });

  it('without the servers, the tools work as before, with one notice in the first edit result', async () => {
    const missing: LanguageServerSpec = {
      ...TYPESCRIPT_SERVER,
      script: () => {
        throw new Error("Cannot find module 'typescript-language-server/lib/cli.mjs'");
      },
    };
    const { repo, harness } = worker(
      [
        { tools: [{ name: 'Read', input: { file_path: 'src/main.ts' } }] },
        { tools: [{ name: 'Edit', input: BREAK }] },
        { tools: [{ name: 'Edit', input: FIX }] },
        { tools: [{ name: 'Report', input: REPORT }] },
      ],
      { servers: [missing, PYTHON_SERVER] },
    );
    const events: AgentEvent[] = [];
    const result = await harness.run('change total', (event) => events.push(event));
    expect(result.reason).toBe('report');
    const edits = events.filter((e) => e.type === 'tool_result' && e.name === 'Edit');
    expect(edits.map((e) => (e as { is_error: boolean }).is_error)).toEqual([false, false]);
    const messages = harness.session.messages.flatMap((m) => m.content.map((block) => ('content' in block ? String(block.content) : '')));
    const noted = messages.filter((text) => text.includes('language server is not available'));
    expect(noted).toHaveLength(1);
    expect(noted[0]).toMatch(
      /^Edited src\/main\.ts: 1 replacement\.[\s\S]*\[diagnostics\] The TypeScript language server is not available \(it could not start: Cannot find module/,
    );
    expect(
      events.filter((e) => e.type === 'notice' && /TypeScript language server is not available/.test((e as { message: string }).message)),
    ).toHaveLength(1);
    expect(toolResults(events).length).toBeGreaterThan(0);
    expect(processesWorkingIn(repo)).toEqual([]);
  });
});
