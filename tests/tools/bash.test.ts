import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { killAllProcessGroups, liveProcessGroups } from '../../shared/core/runtime/processGroup.js';
import type { BashResultData } from '../../shared/core/tool/bashResultData.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import type { ToolContext } from '../../shared/core/tool/tool.js';
import { BashInputSchema, bashTool, makeBashTool } from '../../shared/tools/bash.js';
import { processesMatching, waitForCommands, waitForNoProcess } from '../support/processTable.js';
import { makeToolContext } from '../support/toolContext.js';

// Unique sleep durations (600.3xx) name each test's processes in `ps`, so files running in
// parallel cannot be confused with each other.

afterEach(async () => {
  // Every call must leave no group behind; a failed test must not leave its sleeps either.
  const left = liveProcessGroups();
  await killAllProcessGroups(200);
  expect(left).toEqual([]);
});

function bash(command: string, ctx: ToolContext, extra: { timeout?: number } = {}) {
  return bashTool.call(BashInputSchema.parse({ command, ...extra }), ctx);
}

function throughPipeline(input: unknown, ctx: ToolContext, tool = bashTool) {
  return runToolCall({ id: 'toolu_bash', name: 'Bash', input }, new ToolRegistry([tool]), modeOnlySlots, ctx);
}

function dataOf(output: { data?: unknown }): BashResultData {
  return output.data as BashResultData;
}

describe('Bash results', () => {
  it('returns stdout, a labelled stderr section and the exit code', async () => {
    const output = await bash('echo out-line; echo err-line >&2; exit 3', makeToolContext());
    expect(output.content).toBe('out-line\n[stderr]\nerr-line\nExit code: 3');
    expect(dataOf(output)).toEqual({ exitCode: 3, signal: null, stdoutBytes: 9, stderrBytes: 9, stdout: 'out-line', stderr: 'err-line' });
  });

  it('hands a non-zero exit to the model as a result, not an error', async () => {
    const result = await throughPipeline({ command: 'echo failing >&2; false', description: 'fail on purpose' }, makeToolContext());
    expect(result.block.is_error).toBeUndefined();
    expect(result.block.content).toBe('[stderr]\nfailing\nExit code: 1');
    expect(dataOf(result.output!).exitCode).toBe(1);
  });

  it('says which signal ended the command', async () => {
    const output = await bash('kill -USR1 $$', makeToolContext());
    expect(output.content).toBe('(no output)\nKilled by signal SIGUSR1');
    expect(dataOf(output)).toMatchObject({ exitCode: null, signal: 'SIGUSR1' });
  });

  it('runs in the workspace root with the session environment added and stdin closed', async () => {
    const ctx = makeToolContext();
    ctx.shell.env = { PORT: '45678', ORCA_PORTS: '45678,45679' };
    // `cat` ends at once only because stdin is closed; PATH shows process.env is kept.
    const output = await bash('echo "$PORT $ORCA_PORTS"; pwd -P; cat; test -n "$PATH" && echo has-path', ctx, {
      timeout: 30_000,
    });
    expect(output.content).toBe(`45678 45678,45679\n${ctx.workspace.root}\nhas-path\nExit code: 0`);
  });

  it('adds nothing that changes how programs behave: CI, NO_COLOR, FORCE_COLOR and TERM are the user’s', async () => {
    const ctx = makeToolContext();
    ctx.shell.env = { PORT: '45678' };
    const names = ['CI', 'NO_COLOR', 'FORCE_COLOR', 'TERM'];
    const output = await bash(names.map((name) => `echo "${name}=\${${name}-unset}"`).join('; '), ctx);
    const expected = names.map((name) => `${name}=${process.env[name] ?? 'unset'}`).join('\n');
    expect(output.content).toBe(`${expected}\nExit code: 0`);
  });

  it('runs the command through ctx.shell.wrap when the sandbox layer sets it', async () => {
    const ctx = makeToolContext();
    const seen: string[] = [];
    ctx.shell.wrap = (command, cwd) => {
      seen.push(cwd);
      return { file: 'env', args: ['WRAPPED=yes', 'bash', '-c', command] };
    };
    const output = await bash('echo "wrapped=$WRAPPED"', ctx);
    expect(output.content).toBe('wrapped=yes\nExit code: 0');
    expect(seen).toEqual([ctx.workspace.root]);
  });

  it('kills the background jobs the command leaves behind when the shell exits', async () => {
    const output = await bash('sleep 600.331 & echo left-behind', makeToolContext());
    expect(output.content).toBe('left-behind\nExit code: 0');
    expect(await waitForNoProcess('sleep 600.331')).toEqual([]);
  });
});

describe('Bash input', () => {
  it('refuses a timeout above the maximum, naming it, and runs nothing', async () => {
    const ctx = makeToolContext();
    const result = await throughPipeline({ command: 'touch ran-anyway', timeout: 600_001 }, ctx);
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).toContain('timeout 600001 ms is above the maximum of 600000 ms (10 minutes)');
    expect(existsSync(path.join(ctx.workspace.root, 'ran-anyway'))).toBe(false);
  });

  it('names the field for a timeout of the wrong type, an unknown field and an empty command', async () => {
    const ctx = makeToolContext();
    const wrongType = await throughPipeline({ command: 'true', timeout: '5000' }, ctx);
    expect(wrongType.block.is_error).toBe(true);
    expect(wrongType.block.content).toMatch(/timeout: .*expected number/);

    const unknown = await throughPipeline({ command: 'true', run_in_background: true }, ctx);
    expect(unknown.block.is_error).toBe(true);
    expect(unknown.block.content).toContain('run_in_background');

    const empty = await throughPipeline({ command: '  ' }, ctx);
    expect(empty.block.is_error).toBe(true);
    expect(empty.block.content).toContain('command: the command is empty');
  });
});

describe('Bash timeout and abort', () => {
  it('on timeout kills the whole group and reports the output so far as an error', async () => {
    const ctx = makeToolContext();
    const result = await throughPipeline({ command: 'echo started; sleep 600.311 & sleep 600.312; echo never', timeout: 1_000 }, ctx);
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).toMatch(/^Command timed out after 1000 ms/);
    expect(result.block.content).toContain('Output so far:\nstarted');
    expect(result.block.content).not.toContain('never');
    expect(await waitForNoProcess('sleep 600.311')).toEqual([]);
    expect(await waitForNoProcess('sleep 600.312')).toEqual([]);
  });

  it('on abort kills the group, grandchildren included, and throws with the output so far', async () => {
    const controller = new AbortController();
    const ctx = makeToolContext({ signal: controller.signal });
    const call = bash(`echo begun; sh -c "(sleep 600.321)" & bash -c 'sleep 600.322 & wait' & wait; echo never`, ctx);
    await waitForCommands(['sleep 600.321', 'sleep 600.322']);

    controller.abort();

    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toMatch(/^Command was aborted/);
    expect((error as ToolError).message).toContain('Output so far:\nbegun');
    expect((error as ToolError).message).not.toContain('never');
    expect(await waitForNoProcess('sleep 600.321')).toEqual([]);
    expect(await waitForNoProcess('sleep 600.322')).toEqual([]);
  });

  it('refuses to start once the session is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = makeToolContext({ signal: controller.signal });
    await expect(bash('touch ran-anyway', ctx)).rejects.toThrow(/not run: the session was aborted/);
    expect(existsSync(path.join(ctx.workspace.root, 'ran-anyway'))).toBe(false);
  });
});

describe('Bash output size', () => {
  it('streams a 10 MB output to a file in the session folder, and the model gets a preview', async () => {
    const ctx = makeToolContext();
    const size = 10 * 1024 * 1024;
    const result = await throughPipeline({ command: `head -c ${size} /dev/zero | tr '\\0' x` }, ctx);

    expect(result.block.is_error).toBeUndefined();
    const data = dataOf(result.output!);
    expect(data).toMatchObject({ exitCode: 0, stdoutBytes: size, stderrBytes: 0 });
    expect(data.outputFile!.startsWith(ctx.session.dir)).toBe(true);
    expect(statSync(data.outputFile!).size).toBe(size);

    const content = result.block.content as string;
    expect(content.length).toBeLessThan(5_000);
    // The preview starts with how the command ended and where its whole stdout is.
    expect(content).toMatch(/^\[Exit code: 0\. Long output: stdout 10485760 bytes \(saved in \S+\.stdout\.txt\)/);
    expect(content).toContain(data.outputFile);
    expect(content).toContain('x'.repeat(1_000));
    expect(content).toMatch(/whole output is saved in \S+tool-results/);
  });

  it('keeps the start of each stream in memory and the whole stream in a file', async () => {
    const tool = makeBashTool({ capture: { memoryBytes: 4096, fileBytes: 1024 * 1024 } });
    const output = await tool.call(
      { command: `head -c 10000 /dev/zero | tr '\\0' a; head -c 9000 /dev/zero | tr '\\0' b >&2` },
      makeToolContext(),
    );
    const data = dataOf(output);
    expect(readFileSync(data.outputFile!, 'utf8')).toBe('a'.repeat(10_000));
    expect(readFileSync(data.stderrFile!, 'utf8')).toBe('b'.repeat(9_000));
    expect(output.content).toContain(`${'a'.repeat(4096)}\n[stdout is 10000 bytes; only its first 4096 bytes are in this result.`);
    expect(output.content).toContain(`[stderr]\n${'b'.repeat(4096)}\n[stderr is 9000 bytes;`);
    expect(output.content.endsWith('Exit code: 0')).toBe(true);
  });

  it('caps the file for endless output: the rest is counted and dropped until the timeout', async () => {
    const tool = makeBashTool({ capture: { memoryBytes: 4096, fileBytes: 65_536 }, killGraceMs: 500 });
    const ctx = makeToolContext();
    const error = await tool.call({ command: 'yes orca-endless-output', timeout: 1_500 }, ctx).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ToolError);
    const message = (error as ToolError).message;
    expect(message).toMatch(/^Command timed out after 1500 ms/);
    expect(message).toMatch(/Its first 65536 bytes are saved in \S+; the last \d+ bytes were discarded/);
    const dir = path.join(ctx.session.dir, 'bash-output');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(path.join(dir, files[0]!)).size).toBe(65_536);
    expect(processesMatching('yes orca-endless-output')).toEqual([]);
  });
});

describe('Bash pipeline stages (PIPESTATUS)', () => {
  it('records each stage of a pipeline with its own exit status, and shows them when one failed', async () => {
    const output = await bash('echo "not ok 1" && false 2>&1 | tail -5', makeToolContext());
    // `a && b | c` is not one pipeline: only the raw statuses of the last pipeline.
    expect(dataOf(output).pipeline).toBeUndefined();
    expect(dataOf(output).pipeStatus).toEqual([1, 0]);

    const piped = await bash('sh -c "echo tests failed; exit 4" 2>&1 | tail -5', makeToolContext());
    expect(piped.content).toBe(
      'tests failed\nExit code: 0 (pipeline stages: `sh -c "echo tests failed; exit 4"` exited 4, `tail -5` exited 0)',
    );
    expect(dataOf(piped)).toMatchObject({
      exitCode: 0,
      pipeStatus: [4, 0],
      pipeline: [
        { command: 'sh -c "echo tests failed; exit 4"', exitCode: 4 },
        { command: 'tail -5', exitCode: 0 },
      ],
    });
  });

  it('keeps the plain exit line when every stage passed, and records a single command as one stage', async () => {
    const piped = await bash('echo ok 2>&1 | tee /dev/null', makeToolContext());
    expect(piped.content).toBe('ok\nExit code: 0');
    expect(dataOf(piped).pipeline).toEqual([
      { command: 'echo ok', exitCode: 0 },
      { command: 'tee /dev/null', exitCode: 0 },
    ]);
    const single = await bash('ls /nonexistent-orca-dir 2>/dev/null', makeToolContext());
    expect(dataOf(single)).toMatchObject({ exitCode: 2, pipeline: [{ command: 'ls /nonexistent-orca-dir', exitCode: 2 }] });
  });

  it('leaves the command as it was: its exit code, its line numbers, nothing it starts holding the status pipe', async () => {
    const output = await bash('set -o pipefail; false | true', makeToolContext());
    expect(dataOf(output)).toMatchObject({ exitCode: 1, pipeStatus: [1, 0] });
    const error = await bash('echo one\nno-such-command-orca', makeToolContext());
    expect(error.content).toContain('line 2: no-such-command-orca: command not found');
    expect(dataOf(error).exitCode).toBe(127);
  });
});
