import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { tempDir } from '../support/tempDir.js';
import { dumped } from './harnessKit.js';

/** A Claude Code plugin folder with a hook, an agent, a skill, a command and an MCP server, in Claude Code's published layout. */
function writePlugin(): string {
  const root = path.join(tempDir('orca-plugins-'), 'acme');
  writeFiles(root, {
    '.claude-plugin/plugin.json': JSON.stringify({ name: 'acme', version: '1.0.0', description: 'Acme tools', author: { name: 'Acme' } }),
    'hooks/hooks.json': JSON.stringify({
      description: 'Acme logging hooks',
      hooks: {
        PostToolUse: [{ hooks: [{ type: 'command', command: 'bash ${CLAUDE_PLUGIN_ROOT}/hooks/log.sh', timeout: 10 }] }],
      },
    }),
    'hooks/log.sh': '#!/bin/bash\n{ cat; echo; } >> "$(dirname "$0")/../../hook-log.jsonl"\n',
    'agents/acme-reviewer.md': [
      '---',
      'name: acme-reviewer',
      'description: Reviews a change the Acme way. Examples:',
      '<example>',
      'Context: a change is ready',
      'user: "review it"',
      '</example>',
      'tools: Read, Grep, Bash, Skill',
      'color: purple',
      '---',
      'You review changes the Acme way.',
    ].join('\n'),
    'skills/greet/SKILL.md': '---\nname: greet\ndescription: Greets someone.\n---\nSay hello to $ARGUMENTS from ${CLAUDE_SKILL_DIR}.\n',
    'commands/deploy.md':
      '---\ndescription: Deploy to an environment\nargument-hint: [env]\n---\nDeploy the project to $ARGUMENTS carefully.\n',
    '.mcp.json': JSON.stringify({ mcpServers: { acme: { command: '${CLAUDE_PLUGIN_ROOT}/server.js' } } }),
  });
  return root;
}

const REPORT = (input: Record<string, unknown>) => ({ tools: [{ name: 'Report', input }] });

describe('a Claude Code plugin loaded with --plugin-dir', () => {
  it(
    "its agent runs with orca agent, its skill loads, its hook sees the agent's calls",
    async () => {
      const env = await OrcaTestEnv.open();
      const plugin = writePlugin();
      const repo = makeRepo({ 'README.md': '# demo\n' });
      const script = path.join(env.dir('scripts'), 'review.json');
      writeFileSync(
        script,
        JSON.stringify({
          agents: [
            {
              when: { role: 'acme-reviewer' },
              turns: [
                { tools: [{ name: 'Skill', input: { skill: 'acme:greet', args: 'world' } }] },
                { tools: [{ name: 'Bash', input: { command: 'echo from-bash' } }] },
                REPORT({ findings: [{ fact: 'there is a readme', evidence: 'README.md:1' }], files: ['README.md'], questions: [] }),
              ],
            },
          ],
        }),
      );
      const run = await env.cli([
        'agent',
        '--role',
        'acme-reviewer',
        'review it',
        '--repo',
        repo,
        '--script',
        script,
        '--plugin-dir',
        plugin,
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('plugin acme: MCP servers (acme): not supported yet');

      const log = dumped(path.join(plugin, '..', 'hook-log.jsonl'));
      expect(log.map((input) => input.tool_name)).toEqual(['Skill', 'Bash']);
      expect(log[0]).toMatchObject({
        hook_event_name: 'PostToolUse',
        agent_type: 'acme-reviewer',
        tool_input: { skill: 'acme:greet', args: 'world' },
      });
      expect(log[1]).toMatchObject({ tool_response: { stdout: 'from-bash' } });
      // The skill's body, with its arguments and folder in, as the agent read it.
      const transcript = readFileSync(String(log[0]!.transcript_path), 'utf8');
      expect(transcript).toContain(`Say hello to world from ${path.join(plugin, 'skills', 'greet')}.`);
    },
    SLOW_TEST_MS,
  );

  it(
    'its command is a slash command of orca run, as /acme:deploy and /deploy',
    async () => {
      const env = await OrcaTestEnv.open();
      const plugin = writePlugin();
      const repo = makeRepo({ 'src/a.ts': 'export const a = 1;\n' });
      const listed = await env.cli(['run', '--list-commands', '--repo', repo, '--plugin-dir', plugin]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toBe('/acme:deploy [env]\tDeploy to an environment (plugin:acme)\n');

      const script = path.join(env.dir('scripts'), 'deploy.json');
      writeFileSync(
        script,
        JSON.stringify({
          agents: [
            { when: { role: 'coordinator' }, turns: [REPORT({ questions: [] })] },
            {
              when: { role: 'plan' },
              turns: [
                REPORT({
                  subtasks: [{ id: 'go', title: 'deploy', instructions: 'Deploy.', paths: ['src/**'], depends_on: [] }],
                  risks: [],
                }),
              ],
            },
            {
              when: { role: 'worker', task: 'go' },
              turns: [
                { tools: [{ name: 'Bash', input: { command: 'echo deploying' } }] },
                REPORT({ summary: 'deployed', unresolved: [], claimed_checks: [] }),
              ],
            },
            { when: { role: 'verification' }, turns: [REPORT({ verdict: 'PASS', checks: [], problems: [], confirmations: [] })] },
          ],
        }),
      );
      const run = await env.cli(
        ['run', '/deploy', 'prod', '--repo', repo, '--script', script, '--check', 'true', '--workers', '1', '--plugin-dir', plugin],
        {
          deadlineMs: 240_000,
        },
      );
      const runId = /^orca: run (\S+)/.exec(run.stderr)?.[1];
      expect(runId, run.stderr).toBeDefined();
      const entries = (await readRunEvents(env.redis, env.keys, runId!, '0', 10_000)).map(
        ({ entry }) => entry as { event: Record<string, unknown> },
      );
      const created = entries.find((entry) => entry.event.type === 'run_created')!.event;
      expect(created.task).toBe('Deploy the project to prod carefully.');
      // The plugin's hook ran for the run's agents too.
      const log = dumped(path.join(plugin, '..', 'hook-log.jsonl'));
      expect(log.some((input) => input.tool_name === 'Bash' && input.agent_type === 'worker')).toBe(true);
    },
    SLOW_TEST_MS,
  );
});
