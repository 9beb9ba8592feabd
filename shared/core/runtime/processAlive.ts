/**
 * Whether a process with this pid exists on this host. EPERM means it does, as another user's;
 * a zombie counts as existing (its parent has not reaped it yet).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
