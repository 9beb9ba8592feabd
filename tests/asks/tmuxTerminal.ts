import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { waitFor } from '../board/waitFor.js';
// Imported for its afterEach too: registered before ours, it runs after ours, once the terminal is gone.
import type { OrcaTestEnv } from '../support/orcaEnv.js';
import '../support/orcaEnv.js';

const servers: string[] = [];

/**
 * An orca command on a real pseudo-terminal: a tmux server of the test's own (its own socket, so
 * nothing else's sessions are touched) runs it in a 200×50 window; the test reads the screen and
 * types keys, as a person at the terminal would.
 */
export class TmuxTerminal {
  private constructor(private readonly socket: string) {}

  /** Starts `orca ARGS` (from dist/) in the env; when it ends the window stays, with `EXIT=<code>` printed. */
  static start(env: OrcaTestEnv, args: string[], extraEnv: Record<string, string> = {}): TmuxTerminal {
    const socket = `${env.prefix}-tty`;
    const script = path.join(env.dir('tty'), 'launch.sh');
    const exports = Object.entries(env.processEnv(extraEnv))
      .filter((entry): entry is [string, string] => entry[1] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(entry[0]))
      .map(([name, value]) => `export ${name}=${quote(value)}`);
    const command = [process.execPath, compiledEntry('coordinator/cli.ts'), ...args].map(quote).join(' ');
    // The launching shells outlive a Ctrl-C (a trap, which the command does not inherit) to print how the
    // command ended; the env's variables are the subshell's alone, so what stays after is not the env's process.
    writeFileSync(
      script,
      `trap : INT\n(\ntrap : INT\n${exports.join('\n')}\ncd ${quote(packageRoot())}\n${command}\n)\necho "EXIT=$?"\nsleep 600\n`,
    );
    execFileSync('tmux', ['-L', socket, 'new-session', '-d', '-s', 'orca', '-x', '200', '-y', '50', `sh ${quote(script)}`]);
    servers.push(socket);
    return new TmuxTerminal(socket);
  }

  /** What the window shows now, without trailing blank lines. */
  screen(): string {
    return execFileSync('tmux', ['-L', this.socket, 'capture-pane', '-p', '-J', '-S', '-', '-t', 'orca'], { encoding: 'utf8' }).trimEnd();
  }

  /** Waits until the screen matches (a safety net for a slow machine; past it, fails with what it shows). */
  async shows(pattern: RegExp): Promise<RegExpExecArray> {
    // The command's end stops the wait too: what it printed then is the failure's message.
    await waitFor(
      () => pattern.test(this.screen()) || /^EXIT=\d+$/m.test(this.screen()),
      () => this.screen(),
      180_000,
    );
    const found = pattern.exec(this.screen());
    if (!found) throw new Error(`the command ended without showing ${pattern}:\n${this.screen()}`);
    return found;
  }

  /** Ctrl-C, as a person presses it: the terminal sends SIGINT to its foreground process group. */
  interrupt(): void {
    execFileSync('tmux', ['-L', this.socket, 'send-keys', '-t', 'orca', 'C-c']);
  }

  /** Types `text` and Enter. */
  type(text: string): void {
    execFileSync('tmux', ['-L', this.socket, 'send-keys', '-t', 'orca', '-l', text]);
    execFileSync('tmux', ['-L', this.socket, 'send-keys', '-t', 'orca', 'Enter']);
  }
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

afterEach(() => {
  for (const socket of servers.splice(0)) {
    try {
      execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // Already gone with its one session.
    }
  }
});
