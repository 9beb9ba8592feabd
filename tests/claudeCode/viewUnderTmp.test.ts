import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxAvailability } from '../../shared/policy/permissions/sandbox.js';
import { runClaudeCodeProject } from './harnessKit.js';

/**
 * Issue 22, item 11: a read-only view (an Explore agent's workspace) that lives under the host's
 * /tmp, as it does whenever ORCA_HOME is there. The sandbox's private /tmp hides it unless it is
 * bound back in: Bash then could not even chdir into it.
 */
describe('a read-only workspace under /tmp', () => {
  const found = sandboxAvailability();
  it('is where a sandboxed Bash runs, readable and not writable', async () => {
    // The probe is pointless without a working sandbox: this test needs bwrap (scripts/system-tools.sh installs it).
    expect(found.kind, found.problem).toBe('bwrap');
    const { repo, events } = await runClaudeCodeProject({
      files: { 'README.md': '# under tmp\n' },
      role: 'explore',
      sandbox: true,
      extra: { workspaceWritable: false },
      turns: [
        { tools: [{ name: 'Bash', input: { command: 'pwd && cat README.md' } }] },
        { tools: [{ name: 'Bash', input: { command: 'echo planted > planted.txt' } }] },
      ],
    });
    expect(realpathSync(repo).startsWith('/tmp/')).toBe(true);
    const results = events.filter((event) => event.type === 'tool_result' && event.name === 'Bash');
    expect(results[0]).toMatchObject({ is_error: false });
    expect(results[0]?.type === 'tool_result' && results[0].preview).toContain('# under tmp');
    expect(results[0]?.type === 'tool_result' && results[0].preview).toContain(realpathSync(repo));
    // Reading works; a write into the view is refused.
    expect(results[1]).toMatchObject({ is_error: true });
  });
});
