import os from 'node:os';

/** Who answers from this process, as the run's events name them: `alice@build-3`. */
export function personHere(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? 'someone';
  }
  return `${user}@${os.hostname()}`;
}
