import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_COMMAND, runScript } from '../../bench/runScript.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, toolTurn } from '../support/scriptedJobs.js';
import { ASK_RULE, checkThenReport, PATH_WITH_BIN, publishingRepo, streamEntries, transcriptEvents } from './asksKit.js';
import { TmuxTerminal } from './tmuxTerminal.js';

const USER = `${os.userInfo().username}@${os.hostname()}`;

describe('the terminal prompt of orca run and orca agent, on a real pseudo-terminal (tmux)', { timeout: SLOW_TEST_MS }, () => {
  it('orca run asks at its terminal; lines printed while the question is open go above it; y allows', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = publishingRepo(orca);
    // t2 goes on only once the test says so (a file in the repository's git folder, which the sandbox can read).
    const go = path.join(repo, '.git', 'orca-test-go');
    const script = path.join(orca.dir('script'), 'script.json');
    const scripted = runScript([
      {
        id: 't1',
        paths: ['published.txt'],
        turns: [toolTurn('Bash', { command: 'npm publish --tag next' }), ...checkThenReport('published')],
      },
      {
        id: 't2',
        paths: ['b.txt'],
        turns: [
          toolTurn('Bash', { command: `while [ ! -e ${go} ]; do sleep 0.05; done` }),
          toolTurn('Write', { file_path: 'b.txt', content: 'b\n' }),
          ...checkThenReport('wrote b.txt'),
        ],
      },
    ]);
    writeFileSync(script, JSON.stringify(scripted));
    const tty = TmuxTerminal.start(
      orca,
      [
        'run',
        'publish, and write b.txt',
        '--repo',
        repo,
        '--script',
        script,
        '--workers',
        '1',
        '--concurrency',
        '2',
        '--check',
        CHECK_COMMAND,
      ],
      { PATH: PATH_WITH_BIN },
    );
    const [, runId] = await tty.shows(/^orca: run (\S+)$/m);
    const [, requestId] = await tty.shows(/request ([0-9a-f]{8}) in /);
    await tty.shows(/Allow\? \[y\]es \/ \[n\]o \/ \[a\]llow Bash\(npm publish:\*\) for the rest of the run:$/);
    expect(tty.screen()).toContain('? t1 (worker) asks to run Bash: npm publish --tag next');
    expect(tty.screen()).toContain(`the rule ${ASK_RULE} in .claude/settings.json asks before \`npm publish --tag next\``);

    // While the question is open, t2 runs to its merge: its lines come out above the prompt, which stays whole at the bottom.
    writeFileSync(go, '');
    await tty.shows(/t2 merged/);
    const lines = tty.screen().split('\n');
    // (The terminal's capture drops the space after the colon.)
    expect(lines.at(-1)).toBe('Allow? [y]es / [n]o / [a]llow Bash(npm publish:*) for the rest of the run:');
    expect(lines.findIndex((line) => line.includes('t2 merged'))).toBeLessThan(lines.length - 1);
    expect(lines.findIndex((line) => line.includes('t2 merged'))).toBeGreaterThan(
      lines.findIndex((line) => line.includes('? t1 (worker)')),
    );

    tty.type('y');
    await tty.shows(/^EXIT=\d+$/m);
    const screen = tty.screen();
    expect(screen, screen).toMatch(/^EXIT=0$/m);
    expect(screen).toContain(`request ${requestId} allowed here`);

    // What the answer did: the command ran in t1's worktree, and its record was merged.
    expect(git(repo, 'show', `orca/${runId}/integration:published.txt`)).toBe('npm publish --tag next');
    const answer = (await streamEntries(orca, runId!)).find((entry) => entry.event.type === 'permission_answer');
    expect(answer!.event).toMatchObject({ request_id: requestId, allowed: true, by: USER, via: 'terminal', remember: [] });
    const board = await readRunBoard(orca.redis, orca.keys, runId!);
    const t1 = board!.tasks.find((task) => task.task_id === 't1')!;
    const allowed = transcriptEvents(t1.transcript!).find((event) => event.type === 'permission' && event.request_id === requestId);
    expect(allowed).toMatchObject({ decision: 'allow', by: USER, via: 'terminal', reason: `allowed at the terminal by ${USER}` });
  });

  it('orca agent asks at its terminal; a keeps the suggested rule for the rest of the run', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = publishingRepo(orca);
    const script = path.join(orca.dir('script'), 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [{ when: { role: 'worker' }, turns: [toolTurn('Bash', { command: 'npm publish' }), reportTurn('published')] }],
      }),
    );
    const tty = TmuxTerminal.start(orca, ['agent', '--role', 'worker', 'publish it', '--repo', repo, '--script', script], {
      PATH: PATH_WITH_BIN,
    });
    const [, runId] = await tty.shows(/^orca: run (\S+)$/m);
    await tty.shows(/for the rest of the run:$/);
    tty.type('maybe');
    // Anything but an answer asks again.
    await tty.shows(/: maybe\nAllow\? \[y\]es/);
    tty.type('a');
    await tty.shows(/^EXIT=\d+$/m);
    expect(tty.screen()).toMatch(/^EXIT=0$/m);
    expect(tty.screen()).toMatch(/request [0-9a-f]{8} allowed for the rest of the run \(Bash\(npm publish:\*\)\) here/);
    const answer = (await streamEntries(orca, runId!)).find((entry) => entry.event.type === 'permission_answer');
    expect(answer!.event).toMatchObject({ allowed: true, via: 'terminal', remember: [ASK_RULE] });
    expect(git(repo, 'show', `orca/${runId}/worker:published.txt`)).toBe('npm publish');
  });
});
