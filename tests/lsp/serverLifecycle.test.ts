import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TYPESCRIPT_SERVER } from '../../shared/tools/lsp/languageServers.js';
import { LspService } from '../../shared/tools/lsp/lspService.js';
import { writeFiles } from '../support/gitRepo.js';
import { processesWorkingIn } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

const services: LspService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

/** Polls until no process works in `dir`; what is left at the deadline (a safety net, not a speed assertion). */
async function nothingLeftIn(dir: string, deadlineMs = 30_000): Promise<number[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const left = processesWorkingIn(dir);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(50);
  }
}

const FILES = { 'a.ts': 'export const a: number = 1;\n' };

describe('language server processes', () => {
  it('are stopped with the service, and a server that fails to start is said once with what it printed', async () => {
    const ctx = makeToolContext();
    writeFiles(ctx.workspace.root, FILES);
    const crashing = path.join(tempDir('orca-bin-'), 'crash.mjs');
    writeFileSync(crashing, "process.stderr.write('boom: no tsserver here\\n'); process.exit(3);\n");
    chmodSync(crashing, 0o755);
    const lsp = new LspService({ enabled: true, servers: [{ ...TYPESCRIPT_SERVER, script: () => crashing }] });
    services.push(lsp);
    const spec = lsp.servers[0]!;
    expect(await lsp.server(spec, ctx)).toBeUndefined();
    expect(await lsp.server(spec, ctx)).toBeUndefined();
    const notes = lsp.takeNotes();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^\[diagnostics\] The TypeScript language server is not available \(it could not start: .*boom: no tsserver here/,
    );
    expect(lsp.takeNotes()).toEqual([]);
    expect(ctx.events.filter((e) => e.type === 'notice')).toHaveLength(1);

    const working = new LspService({ enabled: true });
    services.push(working);
    const server = await working.server(TYPESCRIPT_SERVER, ctx);
    await server!.sync(path.join(ctx.workspace.root, 'a.ts'), 'typescript', FILES['a.ts']);
    expect(await server!.diagnostics(path.join(ctx.workspace.root, 'a.ts'))).toEqual([]);
    expect(processesWorkingIn(ctx.workspace.root).length).toBeGreaterThanOrEqual(2);
    await working.close();
    expect(processesWorkingIn(ctx.workspace.root)).toEqual([]);
  });

  it('do not outlive an agent process killed with SIGKILL: the group watchdog stops them', async () => {
    const root = tempDir('orca-ws-');
    writeFiles(root, FILES);
    const dist = (file: string) => JSON.stringify(new URL(`../../dist/shared/${file}`, import.meta.url).href);
    const program = `const { LspService } = await import(${dist('tools/lsp/lspService.js')});
      const { TYPESCRIPT_SERVER } = await import(${dist('tools/lsp/languageServers.js')});
      const { Workspace } = await import(${dist('core/files/workspace.js')});
      const ctx = { workspace: new Workspace(process.cwd()), shell: { env: {} }, emit() {}, signal: new AbortController().signal };
      const server = await new LspService({ enabled: true }).server(TYPESCRIPT_SERVER, ctx);
      await server.sync(process.cwd() + '/a.ts', 'typescript', 'export const a: number = 1;\\n');
      await server.diagnostics(process.cwd() + '/a.ts');
      console.log('started');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    const servers = processesWorkingIn(root).filter((pid) => pid !== child.pid);
    expect(servers.length).toBeGreaterThanOrEqual(2);

    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await nothingLeftIn(root)).toEqual([]);
  });
});
