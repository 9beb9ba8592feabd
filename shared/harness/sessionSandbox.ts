import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { familyOf } from '../core/tool/toolFacts.js';
import { networkRules, type Sandbox, shellSandbox } from '../policy/permissions/sandbox.js';
import type { LoadedSettings } from '../policy/settings/loadSettings.js';
import { LANGUAGE_SERVERS, serverReadablePaths } from '../tools/lsp/languageServers.js';
import type { HarnessOptions } from './harnessOptions.js';

/**
 * The session's scratch folder (its TMPDIR) and the bwrap sandbox its shell runs in; what the
 * sandbox has to say, and an unsandboxed full-access agent with Bash, go to `notices`.
 */
export function sessionSandbox(
  options: HarnessOptions,
  settings: LoadedSettings,
  notices: string[],
): { sandbox: Sandbox; scratchDir: string } {
  // The session's scratch folder: TMPDIR, at the same path in the sandbox and out, writable by Bash.
  const scratch = path.join(options.sessionDir, 'tmp');
  mkdirSync(scratch, { recursive: true });
  const scratchDir = realpathSync(scratch);
  const { domains, sockets } = networkRules(settings);
  const sandbox = shellSandbox({
    enabled: options.role.sandbox,
    mode: options.sandboxMode,
    // A read-only view is not writable even to its own shell: the private temp folder stands in.
    worktree: options.workspaceWritable ? options.workspaceRoot : scratchDir,
    tempDir: scratchDir,
    domains,
    sockets,
    // The workspace itself (a read-only view is not bound writable) and what the language servers run from.
    extraReadable: [
      ...(options.sandboxReadable ?? []),
      options.workspaceRoot,
      ...serverReadablePaths(options.lsp?.servers ?? LANGUAGE_SERVERS),
    ],
    notify: (message) => notices.push(message),
  });
  // Said per session, not once per process: an unsandboxed full-access agent is the case to know about.
  if (!sandbox.active && options.role.mode === 'full-access' && options.tools.some((tool) => familyOf(tool) === 'run'))
    notices.push(
      `${options.role.name} runs in full-access mode without the sandbox: its Bash commands run on this host as you, held only by the permission checks (a write a command names must be inside the worktree)`,
    );
  return { sandbox, scratchDir };
}
