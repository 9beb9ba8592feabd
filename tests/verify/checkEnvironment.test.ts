import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { colourStripper, stripColour } from '../../shared/infra/verify/checks/colourlessLog.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const FIXTURE = path.join(packageRoot(), 'tests', 'verify', 'fixtures', 'colour-project');
/** What orca must neither add nor remove: each changes how programs (and their tests) behave. */
const BEHAVIOUR_VARIABLES = ['CI', 'NO_COLOR', 'FORCE_COLOR', 'TERM', 'CLICOLOR_FORCE'] as const;

const saved = Object.fromEntries(BEHAVIOUR_VARIABLES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of BEHAVIOUR_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function colourProject(): string {
  return makeRepo(Object.fromEntries(readdirSync(FIXTURE).map((name) => [name, readFileSync(path.join(FIXTURE, name), 'utf8')])));
}

/** The same command in a plain shell, with this process's environment as it is. */
function plainShell(command: string, cwd: string): { code: number | null; output: string } {
  const run = spawnSync('bash', ['-c', command], { cwd, env: process.env, encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** As integration verification runs it: the user's environment and the leased ports. */
function asIntegrationCheck(command: string, cwd: string) {
  return runCheck({ command }, { cwd, logDir: tempDir(), env: { PORT: '41001', ORCA_PORTS: '41001,41002' } });
}

describe('checks run in the user’s environment', () => {
  it('passes a project whose tests assert colour behaviour under FORCE_COLOR exactly as a plain shell does', async () => {
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    delete process.env.CI;
    const dir = colourProject();
    const plain = plainShell('node --test', dir);
    expect(plain.code, plain.output).toBe(0);
    const evidence = await asIntegrationCheck('node --test', dir);
    expect(evidence.exit_code).toBe(plain.code);
    expect(evidence.counts).toMatchObject({ known: true, executed: 3, passed: 3, failed: 0 });
  });

  it('fails it the same way when the user has NO_COLOR set: the environment is theirs, not orca’s', async () => {
    process.env.NO_COLOR = '1';
    const dir = colourProject();
    const plain = plainShell('node --test', dir);
    expect(plain.code).toBe(1);
    const evidence = await asIntegrationCheck('node --test', dir);
    expect(evidence.exit_code).toBe(1);
    // Its FORCE_COLOR and CLICOLOR_FORCE tests fail under NO_COLOR, as commander's did under orca's own NO_COLOR=1.
    expect(evidence.counts).toMatchObject({ known: true, executed: 3, passed: 1, failed: 2 });
  });

  it('adds none of CI, NO_COLOR, FORCE_COLOR, TERM and keeps the ones the user set', async () => {
    const dir = makeRepo();
    const show = BEHAVIOUR_VARIABLES.map((name) => `${name}=\${${name}-unset}`).join(' ');
    delete process.env.CI;
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = '3';
    process.env.TERM = 'xterm-256color';
    delete process.env.CLICOLOR_FORCE;
    const evidence = await asIntegrationCheck(`echo ${show} PORT=$PORT`, dir);
    expect(readFileSync(evidence.log, 'utf8').trim()).toBe(
      'CI=unset NO_COLOR=unset FORCE_COLOR=3 TERM=xterm-256color CLICOLOR_FORCE=unset PORT=41001',
    );
    expect(plainShell(`echo ${show}`, dir).output.trim()).toBe(
      'CI=unset NO_COLOR=unset FORCE_COLOR=3 TERM=xterm-256color CLICOLOR_FORCE=unset',
    );
  });

  it('keeps the log without colour, and counts tests from coloured output', async () => {
    process.env.FORCE_COLOR = '1';
    const dir = colourProject();
    const evidence = await asIntegrationCheck('node --test --test-reporter=spec', dir);
    const log = readFileSync(evidence.log, 'utf8');
    expect(log).toContain('colour is on');
    expect(log).not.toContain('\x1b');
    expect(evidence.counts).toMatchObject({ known: true, executed: 3, passed: 3 });
    // The program itself printed colour: only the stored log lost it.
    expect(plainShell('node --test --test-reporter=spec', dir).output).toContain('\x1b[32mcolour is on\x1b[39m');
  });
});

describe('stripping colour from a log', () => {
  it('removes CSI, OSC and charset sequences and leaves every other byte, UTF-8 included', () => {
    expect(stripColour('\x1b[1m\x1b[31mfail\x1b[0m ✔ ünïcode \x1b]8;;https://x\x07link\x1b]8;;\x07 \x1b(Bplain')).toBe(
      'fail ✔ ünïcode link plain',
    );
  });

  it('strips a sequence split across chunks, and passes bytes that are not text unchanged', async () => {
    const stripper = colourStripper();
    const out: Buffer[] = [];
    stripper.on('data', (chunk: Buffer) => out.push(chunk));
    const done = new Promise((resolve) => stripper.on('end', resolve));
    stripper.write(Buffer.from('ok \x1b[3'));
    stripper.write(Buffer.from('2mgreen\x1b'));
    stripper.write(Buffer.from('[39m ✔ '));
    stripper.write(Buffer.from([0xff, 0x9b, 0x00]));
    stripper.end(Buffer.from(' end'));
    await done;
    expect(Buffer.concat(out)).toEqual(Buffer.concat([Buffer.from('ok green ✔ '), Buffer.from([0xff, 0x9b, 0x00]), Buffer.from(' end')]));
  });
});
