/**
 * What orca says where there is no working sandbox and the user did not say off: one line naming
 * what is missing, how to get it, and the one way to go on without it. In a file of its own so
 * that the CLI's sandbox line (sandboxLine.ts) does not load the sandbox itself (its proxy).
 */
export class NoSandboxError extends Error {
  constructor(problem: string, fix: string) {
    super(`no sandbox here (${problem}): ${fix}; or say --sandbox off (ORCA_SANDBOX=off) to run agent code unsandboxed, as you`);
    this.name = 'NoSandboxError';
  }
}
