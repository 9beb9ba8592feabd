import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `@modelcontextprotocol/server-everything`'s entry (a devDependency): `stdio` or `streamableHttp` as its argument. */
export const EVERYTHING_SERVER = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** The test fixture with 120 tools (tests/fixtures/mcp/manyToolsServer.mjs). */
export const MANY_TOOLS_SERVER = path.join(root, 'tests', 'fixtures', 'mcp', 'manyToolsServer.mjs');

/** The everything server in its streamable HTTP mode, on a free port, until `stop`. */
export class HttpEverything {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<HttpEverything> {
    const port = await getPort();
    const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    const deadline = Date.now() + 30_000;
    while (!(await listening(port))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the everything server did not start in its HTTP mode');
      await sleep(50);
    }
    return new HttpEverything(`http://127.0.0.1:${port}/mcp`, child);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await once(this.child, 'exit');
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Every transcript line of the agents under an ORCA_HOME, in file order. */
export function transcriptLines(home: string): Array<Record<string, unknown>> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name === 'transcript.jsonl') files.push(path.join(dir, entry.name));
    }
  };
  walk(home);
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}
