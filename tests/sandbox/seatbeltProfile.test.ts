import { describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '../../shared/core/sandbox/sandboxPolicy.js';
import { sbplString, seatbeltProfile, seatbeltWrap } from '../../shared/core/sandbox/seatbeltProfile.js';

/**
 * macOS's sandbox-exec cannot run here (Linux CI): these pin the profile's text, every rule of
 * the policy present, in the order that makes the more specific path decide, and paths escaped.
 */
const POLICY: SandboxPolicy = {
  writable: ['/Users/me/.orca/worktrees/r1/t1'],
  readOnly: ['/Users/me/.orca', '/Users/me/.claude', '/Users/me/.claude.json', '/Users/me/.gitconfig', '/Users/me/src/app "quoted"\\dir'],
  hidden: ['/Users/me/.orca/secrets'],
  tempDir: '/Users/me/.orca/sessions/s1/tmp',
  network: { kind: 'proxy', endpoint: () => ({ port: 40123 }) },
  sockets: ['/Users/me/.colima/docker.sock'],
};

describe('the sandbox-exec profile', () => {
  const profile = seatbeltProfile(POLICY);
  const lines = profile.split('\n');

  it('allows by default and closes writes, then opens the writable folders and TMPDIR', () => {
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(allow default)']);
    expect(lines).toContain('(deny file-write*)');
    expect(lines).toContain('(allow file-write* (subpath "/Users/me/.orca/worktrees/r1/t1"))');
    expect(lines).toContain('(allow file-write* (subpath "/Users/me/.orca/sessions/s1/tmp"))');
  });

  it('makes each read-only path read-only and each hidden path unreadable, the deeper rule last', () => {
    for (const file of ['/Users/me/.orca', '/Users/me/.claude', '/Users/me/.claude.json', '/Users/me/.gitconfig'])
      expect(lines).toContain(`(deny file-write* (subpath "${file}"))`);
    expect(lines).toContain('(deny file-read* file-write* (subpath "/Users/me/.orca/secrets"))');
    const at = (rule: string) => lines.indexOf(rule);
    // ORCA_HOME read-only first, then the worktree inside it writable, then its secrets hidden.
    expect(at('(deny file-write* (subpath "/Users/me/.orca"))')).toBeLessThan(
      at('(allow file-write* (subpath "/Users/me/.orca/worktrees/r1/t1"))'),
    );
    expect(at('(deny file-write* (subpath "/Users/me/.orca"))')).toBeLessThan(
      at('(deny file-read* file-write* (subpath "/Users/me/.orca/secrets"))'),
    );
    expect(at('(deny file-write*)')).toBeLessThan(at('(deny file-write* (subpath "/Users/me/.orca"))'));
  });

  it('keeps a path that is both writable and read-only writable', () => {
    const both = seatbeltProfile({ ...POLICY, readOnly: [...POLICY.readOnly, POLICY.writable[0]!] });
    expect(both).not.toContain('(deny file-write* (subpath "/Users/me/.orca/worktrees/r1/t1"))');
  });

  it('escapes quotes and backslashes in paths, and refuses a path with a control character', () => {
    expect(lines).toContain('(deny file-write* (subpath "/Users/me/src/app \\"quoted\\"\\\\dir"))');
    expect(sbplString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(() => sbplString('/tmp/evil\n(allow default)')).toThrow(/holds a control character/);
  });

  it('closes the network but the proxy port, and unix sockets but its own and those a rule names', () => {
    const network = lines.slice(lines.indexOf('(deny network*)'));
    expect(network).toEqual([
      '(deny network*)',
      '(allow network* (local unix-socket))',
      '(deny network-outbound (remote unix-socket))',
      '(allow network-outbound (remote unix-socket (subpath "/Users/me/.orca/worktrees/r1/t1")))',
      '(allow network-outbound (remote unix-socket (subpath "/Users/me/.orca/sessions/s1/tmp")))',
      '(allow network-outbound (remote unix-socket (literal "/Users/me/.colima/docker.sock")))',
      '(allow network-outbound (remote ip "localhost:40123"))',
    ]);
    expect(seatbeltProfile({ ...POLICY, network: { kind: 'none' } })).not.toContain('remote ip');
    expect(
      seatbeltProfile({ ...POLICY, network: { kind: 'host' } })
        .split('\n')
        .at(-1),
    ).toBe('(allow network*)');
  });

  it('starts the command through env with TMPDIR and the proxy variables set', () => {
    const { file, args } = seatbeltWrap('/usr/bin/sandbox-exec', POLICY)('npm test', '/Users/me/.orca/worktrees/r1/t1');
    expect(file).toBe('/usr/bin/sandbox-exec');
    expect(args.slice(0, 2)).toEqual(['-p', profile]);
    expect(args.slice(2)).toEqual([
      '/usr/bin/env',
      'TMPDIR=/Users/me/.orca/sessions/s1/tmp',
      'HTTP_PROXY=http://127.0.0.1:40123',
      'HTTPS_PROXY=http://127.0.0.1:40123',
      'http_proxy=http://127.0.0.1:40123',
      'https_proxy=http://127.0.0.1:40123',
      'ALL_PROXY=http://127.0.0.1:40123',
      'all_proxy=http://127.0.0.1:40123',
      'NO_PROXY=localhost,127.0.0.1,::1',
      'no_proxy=localhost,127.0.0.1,::1',
      '/bin/bash',
      '-c',
      'npm test',
    ]);
  });

  it('sends loopback through the proxy too for an external agent (no NO_PROXY)', () => {
    const policy: SandboxPolicy = { ...POLICY, network: { kind: 'proxy', endpoint: () => ({ port: 40123 }), loopbackThroughProxy: true } };
    const { args } = seatbeltWrap('/usr/bin/sandbox-exec', policy)('agent', '/Users/me/.orca/worktrees/r1/t1');
    expect(args).toContain('HTTPS_PROXY=http://127.0.0.1:40123');
    expect(args).toContain('NO_PROXY=');
    expect(args).toContain('no_proxy=');
  });
});
