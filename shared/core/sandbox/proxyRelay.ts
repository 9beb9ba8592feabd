import { spawn } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { constants } from 'node:os';

/**
 * Runs inside the Linux sandbox, before the command: serves the host's filtering proxy, whose
 * unix socket is bound in, on 127.0.0.1:<port> (what HTTP_PROXY names), then runs the command and
 * exits as it does. The relay for a host without socat (proxyRelayStart.ts prefers socat, which
 * starts in a few milliseconds where this takes a Node process's start): node is on every host
 * orca runs on. It listens before the command starts, so its first request never races it.
 *
 * Usage: node proxyRelay.js <port> <socket> <program> [args...]
 */
const [portText, socket, program, ...args] = process.argv.slice(2);
if (!portText || !socket || !program) {
  process.stderr.write('orca proxy relay: usage: proxyRelay.js <port> <socket> <program> [args...]\n');
  process.exit(2);
}

const relay = createServer((inside) => {
  const outside = connect(socket);
  inside.pipe(outside).pipe(inside);
  // A closed side closes the other; neither error is the command's to see beyond its own socket's.
  inside.on('error', () => outside.destroy());
  outside.on('error', () => inside.destroy());
});
relay.on('error', (error) => {
  process.stderr.write(`orca proxy relay: cannot listen on 127.0.0.1:${portText} (${error.message})\n`);
  process.exit(126);
});
relay.listen(Number(portText), '127.0.0.1', () => {
  const child = spawn(program, args, { stdio: openDescriptors() });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write(`orca proxy relay: cannot start ${program} (${error.message})\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + signalNumber(signal)));
});

/** stdin, stdout, stderr and any further descriptor the caller gave (the Bash tool's status pipe is fd 3). */
function openDescriptors(): number[] {
  const open = [0, 1, 2];
  for (let fd = 3; fd < 10; fd++) {
    try {
      fstatSync(fd);
      open.push(fd);
    } catch {
      break;
    }
  }
  return open;
}

// Killed by a signal: exit as a shell reports it, 128 + its number.
function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? constants.signals[signal] : 1;
}
