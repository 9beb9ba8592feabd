import { InvalidArgumentError, Option } from 'commander';
import { parseSandboxMode, type SandboxMode, sandboxModeFromEnv } from '../shared/core/runtime/sandboxMode.js';

/** `--sandbox <mode>` of `orca run`, `orca agent` and `orca worker`; unset, ORCA_SANDBOX decides (auto by default). */
export function sandboxOption(): Option {
  return new Option(
    '--sandbox <mode>',
    'auto (bwrap when it works here), required (refuse to run without it), or off; default ORCA_SANDBOX, else auto',
  ).argParser((value: string) => {
    const parsed = parseSandboxMode(value);
    if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
    return parsed.mode;
  });
}

/** The mode in force and where it came from, for the sandbox line (`--sandbox off`, `ORCA_SANDBOX=off`). */
export function sandboxChoice(flag: SandboxMode | undefined): { sandbox: SandboxMode; sandboxSource: string } {
  if (flag) return { sandbox: flag, sandboxSource: `--sandbox ${flag}` };
  const mode = sandboxModeFromEnv();
  return { sandbox: mode, sandboxSource: process.env.ORCA_SANDBOX ? `ORCA_SANDBOX=${mode}` : 'the default' };
}
