import { connect } from 'node:net';

/** Whether the host itself reaches a TCP port on loopback: what a sandbox must then refuse is really there. */
export function hostReaches(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
