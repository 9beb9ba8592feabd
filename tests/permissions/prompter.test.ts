import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DenyPrompter, InteractivePrompter, type PermissionQuestion, RecordingPrompter } from '../../shared/policy/permissions/prompter.js';

const question = (summary: string): PermissionQuestion => ({
  tool: 'Bash',
  summary,
  reason: 'Bash needs full-access and this session runs in read-only',
});

describe('DenyPrompter', () => {
  it('refuses, telling the model why and that nobody can be asked', async () => {
    const answer = await new DenyPrompter().ask(question('npm install'));
    expect(answer.allowed).toBe(false);
    expect(answer.reason).toMatch(/^Bash needs full-access and this session runs in read-only\. This session runs without anyone to ask/);
  });
});

describe('RecordingPrompter', () => {
  it('answers in order, records every question, and refuses once its answers run out', async () => {
    const prompter = new RecordingPrompter([true, false]);
    expect((await prompter.ask(question('a'))).allowed).toBe(true);
    expect((await prompter.ask(question('b'))).allowed).toBe(false);
    const third = await prompter.ask(question('c'));
    expect(third.allowed).toBe(false);
    expect(third.reason).toMatch(/question 3 has no preset answer/);
    expect(prompter.questions.map((asked) => asked.summary)).toEqual(['a', 'b', 'c']);
  });
});

describe('InteractivePrompter', () => {
  const opened: InteractivePrompter[] = [];
  afterEach(() => {
    while (opened.length > 0) opened.pop()!.close();
  });

  function terminal() {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    const waiters: { count: number; resolve: () => void }[] = [];
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      const prompts = shown.split('Allow? [y/N] ').length - 1;
      for (const waiter of waiters.filter((w) => prompts >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
    const prompter = new InteractivePrompter({ input, output });
    opened.push(prompter);
    return {
      prompter,
      input,
      shown: () => shown,
      /** Resolves once the prompter has printed its nth prompt. */
      prompted: (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve })),
    };
  }

  it('asks on the terminal and takes y or yes as yes, anything else as no', async () => {
    const { prompter, input, shown, prompted } = terminal();
    const first = prompter.ask(question('npm install left-pad'));
    await prompted(1);
    expect(shown()).toContain('orca: Bash wants to run: npm install left-pad');
    expect(shown()).toContain('Bash needs full-access and this session runs in read-only');
    input.write('Yes\n');
    expect(await first).toEqual({ allowed: true, reason: 'approved at the terminal' });

    const second = prompter.ask(question('rm -rf /'));
    await prompted(2);
    input.write('sure\n');
    expect((await second).allowed).toBe(false);
  });

  it('asks one question at a time', async () => {
    const { prompter, input, shown, prompted } = terminal();
    const first = prompter.ask(question('first'));
    const second = prompter.ask(question('second'));
    await prompted(1);
    expect(shown()).not.toContain('second');
    input.write('n\n');
    expect((await first).allowed).toBe(false);
    await prompted(2);
    expect(shown()).toContain('second');
    input.write('y\n');
    expect((await second).allowed).toBe(true);
  });

  it('drops a line typed while nothing is asked', async () => {
    const { prompter, input, prompted } = terminal();
    const first = prompter.ask(question('first'));
    await prompted(1);
    input.write('n\n');
    await first;
    const stray = new Promise<void>((resolve) => input.once('data', () => setImmediate(resolve)));
    input.write('y\n');
    await stray;
    const second = prompter.ask(question('second'));
    await prompted(2);
    input.write('no\n');
    expect((await second).allowed).toBe(false);
  });

  it('refuses when the input closes or the session aborts', async () => {
    const aborting = terminal();
    const controller = new AbortController();
    const pending = aborting.prompter.ask(question('x'), controller.signal);
    await aborting.prompted(1);
    controller.abort();
    expect(await pending).toMatchObject({ allowed: false, reason: 'the session was aborted before anyone answered' });

    const closing = terminal();
    const waiting = closing.prompter.ask(question('y'));
    await closing.prompted(1);
    closing.input.end();
    expect((await waiting).reason).toMatch(/terminal closed without an answer/);
    expect((await closing.prompter.ask(question('z'))).reason).toMatch(/terminal input is closed/);
  });
});
