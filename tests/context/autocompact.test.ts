import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompactHookInfo } from '../../shared/context/compaction/autocompact.js';
import { CHECKS_HEADING, UNVERIFIED_HEADING } from '../../shared/context/compaction/checkEvidence.js';
import { HANDOFF_PROMPT, HANDOFF_SECTIONS } from '../../shared/context/compaction/handoff.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { RedisTaskStore } from '../../shared/infra/tasks/redisTaskStore.js';
import { makeRepo } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { testRedis } from '../support/redis.js';
import { tempDir } from '../support/tempDir.js';
import { bash, messagesText, REPORT_TURN, read, runScripted } from './scriptedSession.js';

/** A package whose `npm test` fails until src/config.ts says `ready = true`. */
function trapRepo(): string {
  return makeRepo({
    'package.json': JSON.stringify({ name: 'trap', version: '1.0.0', private: true, scripts: { test: 'node check.js' } }, null, 2),
    'check.js':
      "const fs = require('fs');\nif (!fs.readFileSync('src/config.ts', 'utf8').includes('ready = true')) {\n  console.error('AUTH CONFIG MISSING: integration test cannot log in');\n  process.exit(1);\n}\nconsole.log('all good');\n",
    'src/config.ts': 'export const ready = false;\n',
    'big.txt': `${'filler line for the context window\n'.repeat(2_500)}`,
  });
}

/** Fail the check, read and edit the config, then read something big in the same turn: the next call must compact. */
const TRAP_TURNS: ScriptTurn[] = [
  bash('npm test'),
  read('src/config.ts'),
  {
    tools: [
      { name: 'Edit', input: { file_path: 'src/config.ts', old_string: 'ready = false', new_string: 'ready = true' } },
      { name: 'Read', input: { file_path: 'big.txt' } },
    ],
  },
  REPORT_TURN,
];

/** Autocompaction at 20,000 tokens, every other level off. */
const AUTOCOMPACT_AT_20K = {
  contextWindow: 20_000,
  reservedOutputTokens: 0,
  autocompactBufferTokens: 0,
  snipAt: 2,
  microcompactAt: 2,
  collapseAt: 2,
};

function compactions(events: AgentEvent[]): Array<Extract<AgentEvent, { type: 'compaction' }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: 'compaction' }> => event.type === 'compaction');
}

function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + heading.length);
  const next = rest.search(/\n## /);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('autocompact', () => {
  it('keeps the failed check, its log and the unverified edit in what the model sees next (the trap)', async () => {
    const repo = trapRepo();
    const { model, events, session, result } = await runScripted({
      root: repo,
      turns: TRAP_TURNS,
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: AUTOCOMPACT_AT_20K }),
    });
    expect(result.reason).toBe('report');
    expect(compactions(events).map((event) => event.level)).toEqual(['autocompact']);

    const next = model.requests[3]!;
    const text = messagesText(next);
    expect(text).toContain('# Hand-off summary');
    // The failing run itself is gone from the view: only the host's record can tell the model.
    expect(
      next.messages
        .flatMap((message) => message.content)
        .some((block) => block.type === 'tool_result' && block.content.includes('AUTH CONFIG MISSING')),
    ).toBe(false);

    const checks = section(text, CHECKS_HEADING);
    const failed = /- FAILED: `npm test` — exit code 1 \(turn 1\)\. Log: (\S+)/.exec(checks);
    expect(failed).not.toBeNull();
    const log = failed![1]!;
    expect(log.startsWith(session.toolContext.session.dir)).toBe(true);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain('AUTH CONFIG MISSING');

    const unverified = section(text, UNVERIFIED_HEADING);
    expect(unverified).toContain('no check has passed in this session');
    expect(unverified).toContain('- src/config.ts (Edit, turn 3)');

    // The summary's own sections are all there, and the file just edited is shown as it is now.
    for (const title of HANDOFF_SECTIONS) expect(text).toContain(`## ${title}\n`);
    expect(text).toContain('Recently read file src/config.ts, as it is on disk now:\n     1\texport const ready = true;');
  });

  it('lets a real model write the prose, but the host writes the evidence sections', async () => {
    const server = new MessagesServer();
    const baseURL = await server.start();
    try {
      const lie = HANDOFF_SECTIONS.map(
        (title) => `## ${title}\n${title === 'Errors and fixes' ? 'Fixed the auth config; the integration tests pass now.' : 'Noted.'}`,
      ).join('\n\n');
      server.enqueue(
        reply.toolUse('Bash', { command: 'npm test' }, { id: 'toolu_1' }),
        reply.toolUse('Read', { file_path: 'src/config.ts' }, { id: 'toolu_2' }),
        reply.stream([
          {
            type: 'tool_use',
            name: 'Edit',
            input: { file_path: 'src/config.ts', old_string: 'ready = false', new_string: 'ready = true' },
            id: 'toolu_3',
          },
          { type: 'tool_use', name: 'Read', input: { file_path: 'big.txt' }, id: 'toolu_4' },
        ]),
        reply.text(`<analysis>thinking it over</analysis>\n${lie}`),
        reply.toolUse('Report', { summary: 'done' }, { id: 'toolu_5' }),
      );
      const repo = trapRepo();
      const { events, result } = await runScripted({
        root: repo,
        turns: [],
        model: new AnthropicModel({ apiKey: 'test-key', baseURL, model: 'claude-sonnet-4-5', maxRetries: 0 }),
        context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: AUTOCOMPACT_AT_20K }),
      });
      expect(result.reason).toBe('report');
      expect(compactions(events).map((event) => event.level)).toEqual(['autocompact']);
      const summaryCall = server.requests[3]!.body;
      // The tools are defined, as the API wants while the view holds tool calls, but may not be called.
      expect(summaryCall.tools.map((tool: { name: string }) => tool.name)).toEqual(
        server.requests[2]!.body.tools.map((tool: { name: string }) => tool.name),
      );
      expect(summaryCall.tool_choice).toEqual({ type: 'none' });
      expect(JSON.stringify(summaryCall.messages)).toContain(JSON.stringify(HANDOFF_PROMPT).slice(1, 60));
      const after = JSON.stringify(server.requests[4]!.body.messages);
      expect(after).toContain('the integration tests pass now');
      expect(after).not.toContain('thinking it over');
      expect(after).toContain('FAILED: `npm test` — exit code 1 (turn 1). Log: ');
      expect(after).toContain('- src/config.ts (Edit, turn 3)');
      // The summary call's usage is the session's too.
      expect(events.filter((event) => event.type === 'usage')).toHaveLength(5);
    } finally {
      await server.close();
    }
  });

  it('counts a model summary that leaves out a section as a failed compaction', async () => {
    const server = new MessagesServer();
    const baseURL = await server.start();
    try {
      server.enqueue(
        reply.toolUse('Read', { file_path: 'src/config.ts' }, { id: 'toolu_1' }),
        reply.toolUse('Read', { file_path: 'big.txt' }, { id: 'toolu_2' }),
        reply.text('## Request\nall fine'),
        reply.toolUse('Report', { summary: 'done' }, { id: 'toolu_3' }),
      );
      const { events } = await runScripted({
        root: trapRepo(),
        turns: [],
        model: new AnthropicModel({ apiKey: 'test-key', baseURL, model: 'claude-sonnet-4-5', maxRetries: 0 }),
        context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: AUTOCOMPACT_AT_20K }),
      });
      const failed = compactions(events);
      expect(failed.map((event) => event.level)).toEqual(['autocompact_failed']);
      expect(failed[0]!.detail).toContain('"Key concepts"');
      expect(JSON.stringify(server.requests[3]!.body.messages)).not.toContain('Hand-off summary');
    } finally {
      await server.close();
    }
  });

  it('runs PreCompact and PostCompact, and turns autocompaction off after three failures in a row', async () => {
    const calls: Array<[string, CompactHookInfo['trigger']]> = [];
    let blocks = 3;
    const repo = trapRepo();
    const { events } = await runScripted({
      root: repo,
      turns: [read('big.txt'), bash('echo one'), bash('echo two'), bash('echo three'), bash('echo four'), REPORT_TURN],
      context: createContextAssembler({
        homeDir: tempDir('orca-home-'),
        compaction: AUTOCOMPACT_AT_20K,
        onCompact: (phase, info) => {
          calls.push([phase, info.trigger]);
          if (phase === 'pre' && blocks > 0) {
            blocks -= 1;
            return { block: 'the release freeze forbids it' };
          }
          return undefined;
        },
      }),
    });
    const levels = compactions(events).map((event) => event.level);
    expect(levels).toEqual(['autocompact_failed', 'autocompact_failed', 'autocompact_failed', 'autocompact_disabled']);
    expect(compactions(events)[0]!.detail).toBe('a PreCompact hook blocked it: the release freeze forbids it');
    // No fourth attempt: the hook was asked three times, and never after.
    expect(calls).toEqual([
      ['pre', 'auto'],
      ['pre', 'auto'],
      ['pre', 'auto'],
    ]);
  });

  it('counts a compaction that stays over the threshold as a failed attempt, so it cannot loop', async () => {
    const repo = trapRepo();
    // Standing instructions of 12,000 tokens: with the summary and the restored file, over 20,000.
    writeFileSync(path.join(repo, 'CLAUDE.md'), `${'Always write careful code. '.repeat(1_800)}\n`);
    const { events } = await runScripted({
      root: repo,
      turns: [read('big.txt'), bash('echo a'), bash('echo b'), bash('echo c'), bash('echo d'), REPORT_TURN],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: AUTOCOMPACT_AT_20K }),
    });
    const seen = compactions(events);
    // Three attempts, each failed or kept but still over the threshold; then off, and nothing more.
    expect(seen).toHaveLength(4);
    expect(seen.at(-1)!.level).toBe('autocompact_disabled');
    for (const attempt of seen.slice(0, 3)) {
      if (attempt.level === 'autocompact')
        expect(attempt.detail).toContain('still over the threshold of 20000 tokens, so it counts as a failed attempt');
      else expect(attempt.level).toBe('autocompact_failed');
    }
    expect(seen[0]!.level).toBe('autocompact');
    expect(seen[0]!.tokens_after).toBeLessThan(seen[0]!.tokens_before);
  });

  it('resets the failure count on success, and calls PostCompact with the summary', async () => {
    const seen: string[] = [];
    const answers = ['block', 'block', 'allow', 'block', 'block', 'allow'];
    const repo = trapRepo();
    writeFileSync(path.join(repo, 'big2.txt'), `${'more filler for the context window\n'.repeat(2_500)}`);
    const { events } = await runScripted({
      root: repo,
      turns: [read('big.txt'), bash('echo a'), bash('echo b'), read('big2.txt'), bash('echo c'), bash('echo d'), REPORT_TURN],
      context: createContextAssembler({
        homeDir: tempDir('orca-home-'),
        compaction: AUTOCOMPACT_AT_20K,
        onCompact: (phase, info) => {
          seen.push(`${phase}:${info.summary?.includes('# Hand-off summary') ? 'summary' : 'none'}`);
          if (phase === 'pre' && answers.shift() === 'block') return { block: 'not now' };
          return undefined;
        },
      }),
    });
    // Two failures, a success (which resets the count), two failures, a success: never three in a row.
    expect(compactions(events).map((event) => event.level)).toEqual([
      'autocompact_failed',
      'autocompact_failed',
      'autocompact',
      'autocompact_failed',
      'autocompact_failed',
      'autocompact',
    ]);
    expect(seen).toEqual(['pre:none', 'pre:none', 'pre:none', 'post:summary', 'pre:none', 'pre:none', 'pre:none', 'post:summary']);
  });

  it('puts back the recently read files as they are now, the task list and the skills in use', async () => {
    const repo = makeRepo({
      ...Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`f${index}.txt`, `FILE-${index}-ORIGINAL\n`])),
      'big.txt': `${'filler line for the context window\n'.repeat(2_500)}`,
      '.claude/skills/tidy/SKILL.md': '---\ndescription: Tidy up.\n---\nTIDY-SKILL-BODY\n',
    });
    const { redis, keys } = testRedis();
    const tasks = new RedisTaskStore(redis, keys, 'run-1', 't1');
    await tasks.create({ subject: 'Write the parser', description: 'p' });
    await tasks.update('1', { status: 'in_progress' });
    await tasks.create({ subject: 'Add tests', description: 't' });
    const turns: ScriptTurn[] = [
      { tools: [{ name: 'Skill', input: { skill: 'tidy' } }] },
      ...Array.from({ length: 7 }, (_, index) => read(`f${index}.txt`)),
      bash('echo FILE-6-CHANGED-ON-DISK > f6.txt'),
      read('big.txt'),
      { tools: [{ name: 'Edit', input: { file_path: 'f0.txt', old_string: 'ORIGINAL', new_string: 'EDITED' } }] },
      REPORT_TURN,
    ];
    const { model, events, session } = await runScripted({
      root: repo,
      turns,
      services: { taskList: { store: tasks } },
      // Each file back at most 500 tokens: a 20,000-token threshold leaves 5,000 for all of them.
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: { ...AUTOCOMPACT_AT_20K, restoreFileTokens: 500 } }),
    });
    expect(compactions(events).map((event) => event.level)).toEqual(['autocompact']);
    const request = model.requests.find((candidate) => messagesText(candidate).includes('# Hand-off summary'))!;
    const text = messagesText(request);
    // The last exchange (the big read) was the bulk, so it was summarised too; the 5 most recently
    // read files come back as they are now, newest first, big.txt cut to its cap.
    expect(text).toMatch(/Recently read file big\.txt, as it is on disk now:[\s\S]*\[Only lines 1–\d+ of 2500 are shown here/);
    for (const index of [6, 5, 4, 3]) expect(text).toContain(`Recently read file f${index}.txt, as it is on disk now:`);
    expect(text).toContain('FILE-6-CHANGED-ON-DISK');
    expect(text).not.toContain('Recently read file f2.txt');
    expect(text).toContain('#1 [in_progress] Write the parser');
    expect(text).toContain('## Pending tasks\n- #1 [in_progress] Write the parser\n- #2 [pending] Add tests');
    expect(text).toContain('Skill in use: tidy');
    expect(text).toContain('TIDY-SKILL-BODY');
    // f0 is no longer seen: an Edit of it must read it first.
    const editResult = session.messages.at(-3)!.content.find((block) => block.type === 'tool_result');
    expect(editResult?.type === 'tool_result' && editResult.is_error).toBe(true);
    expect(readFileSync(path.join(repo, 'f0.txt'), 'utf8')).toBe('FILE-0-ORIGINAL\n');
  });
});

describe('autocompact with nothing to summarise', () => {
  it('fails without changing the view when the first request alone is over the threshold', async () => {
    const repo = tempDir('orca-plain-');
    writeFileSync(path.join(repo, 'CLAUDE.md'), `${'instruction '.repeat(20_000)}\n`);
    const { events, model } = await runScripted({
      root: repo,
      turns: [REPORT_TURN],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: AUTOCOMPACT_AT_20K }),
    });
    expect(compactions(events).map((event) => [event.level, event.detail])).toEqual([
      ['autocompact_failed', 'there is nothing to summarise yet: the model has not answered once'],
    ]);
    expect(messagesText(model.requests[0]!)).toContain('instruction instruction');
  });
});
