import { UserError } from '../../repoCheck.js';
import { BoardSource } from '../boardSource.js';
import { startBoardServer } from './boardServer.js';
import { isLoopback } from './requestGuard.js';

export interface ServeOptions {
  host: string;
  port: number;
  /** `--token`, else ORCA_BOARD_TOKEN (kept out of `ps`). */
  token?: string;
}

/**
 * `orca serve [--port N] [--host H] [--token T]`: the web board until SIGINT or SIGTERM. It binds
 * 127.0.0.1 unless told otherwise, and refuses to listen anywhere else without a token.
 */
export async function serveCommand(options: ServeOptions): Promise<number> {
  const token = options.token ?? (process.env.ORCA_BOARD_TOKEN || undefined);
  if (!isLoopback(options.host) && !token) {
    throw new UserError(
      `--host ${options.host} would show the board (and its abort button) to other machines: pass --token T or set ORCA_BOARD_TOKEN, or leave --host at 127.0.0.1.`,
    );
  }
  if (token !== undefined && token.length < 16)
    throw new UserError('the board token is too short to guess-proof a server: use 16 characters or more.');

  const source = await BoardSource.open();
  let server;
  try {
    server = await startBoardServer(source, { host: options.host, port: options.port, token });
  } catch (error) {
    source.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UserError(`port ${options.port} on ${options.host} is taken: pass another --port (0 picks a free one).`);
    if (code === 'EADDRNOTAVAIL') throw new UserError(`--host ${options.host} is not an address of this machine.`);
    throw error;
  }
  process.stderr.write(`orca: board at ${server.url}${token ? ' (token required)' : ''} · queue at ${server.url}queues\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  source.close();
  return 0;
}
