import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { processFingerprints, statOf, statTree } from '../../core/files/statFingerprints.js';
import { codeUnitOrder } from '../../core/text/codeUnitOrder.js';
import { type EntryState, readEntry } from './fileSnapshot.js';

/**
 * Files of the user's, outside every worktree, that decide what later sessions run: Claude Code's
 * configuration (`~/.claude`: settings and their hooks, agents, commands, skills, rules, plugins;
 * the MCP servers in `~/.claude.json`), git's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git`), and
 * orca's own state (ORCA_HOME: memory cards, run records, secrets). In the sandbox agent code
 * cannot write them (they are read-only there); without it, it runs as the user and can. After
 * each call that may write, a change to any of them is named; a change to Claude Code's or git's
 * configuration also stops the run (`stops`), since everything after it would run with a
 * configuration nobody reviewed: the user looks at the file, then starts again. None is put back:
 * the user may have changed it, and the host cannot tell.
 */
export type HostFileKind = 'claude' | 'git' | 'orca';

export interface HostFileChange {
  path: string;
  kind: HostFileKind;
  /** Whether the run may not go on with it (Claude Code's and git's configuration). */
  stops: boolean;
}

export interface HostFilesOptions {
  /** The user's home (`~`). */
  home: string;
  /** The user's Claude folder (`~/.claude`, or CLAUDE_CONFIG_DIR). */
  userClaudeDir: string;
  /** ORCA_HOME, when the job has one on this host. */
  orcaHome?: string;
  /** Where git's XDG configuration is (`$XDG_CONFIG_HOME`, else `~/.config`). */
  xdgConfigHome?: string;
}

/** The folders of `~/.claude` whose files are configuration (its projects/, todos/ and the like are Claude Code's own state). */
const CLAUDE_TREES = ['agents', 'commands', 'skills', 'rules', 'hooks', 'output-styles'];
const CLAUDE_FILES = ['settings.json', 'settings.local.json', 'CLAUDE.md'];
const ORCA_TREES = ['memory', 'runs', 'secrets'];

type Watched = { root: string; kind: HostFileKind; tree: boolean };

export class HostFilesWatch {
  private baseline: Map<string, string>;
  private readonly kinds = new Map<string, HostFileKind>();
  /** Each look reads only what was written since one of this process's last looked (statFingerprints.ts). */
  private readonly cache = processFingerprints;

  private constructor(private readonly watched: Watched[]) {
    this.baseline = this.fingerprints();
  }

  static open(options: HostFilesOptions): HostFilesWatch {
    const claude = options.userClaudeDir;
    const git = path.join(options.xdgConfigHome ?? path.join(options.home, '.config'), 'git');
    const watched = [
      ...CLAUDE_FILES.map((name) => ({ root: path.join(claude, name), kind: 'claude' as const, tree: false })),
      ...CLAUDE_TREES.map((name) => ({ root: path.join(claude, name), kind: 'claude' as const, tree: true })),
      // Plugins' own folders are code the user installed; their switches and sources are these files.
      { root: path.join(claude, 'plugins', 'installed_plugins.json'), kind: 'claude' as const, tree: false },
      { root: path.join(claude, 'plugins', 'known_marketplaces.json'), kind: 'claude' as const, tree: false },
      { root: path.join(options.home, '.claude.json'), kind: 'claude' as const, tree: false },
      { root: path.join(options.home, '.gitconfig'), kind: 'git' as const, tree: false },
      { root: path.join(git, 'config'), kind: 'git' as const, tree: false },
      { root: path.join(git, 'attributes'), kind: 'git' as const, tree: false },
      ...(options.orcaHome
        ? ORCA_TREES.map((name) => ({ root: path.join(options.orcaHome!, name), kind: 'orca' as const, tree: true }))
        : []),
    ];
    return new HostFilesWatch(watched);
  }

  /** Takes the files as they are now, naming nothing (after a host-side tool that writes some of them: a memory card). */
  rebaseline(): HostFileChange[] {
    this.baseline = this.fingerprints();
    return [];
  }

  /** What changed since the last look (each change is named once), Claude Code's and git's first. */
  check(): HostFileChange[] {
    const now = this.fingerprints();
    const changed: HostFileChange[] = [];
    for (const file of new Set([...this.baseline.keys(), ...now.keys()])) {
      if (this.baseline.get(file) === now.get(file)) continue;
      const kind = this.kinds.get(file) ?? 'orca';
      changed.push({ path: file, kind, stops: kind !== 'orca' });
    }
    this.baseline = now;
    return changed.sort((a, b) => Number(b.stops) - Number(a.stops) || codeUnitOrder(a.path, b.path));
  }

  /** Each watched file as a fingerprint (missing files and folders are absent), its kind noted. */
  private fingerprints(): Map<string, string> {
    const started = BigInt(Date.now()) * 1_000_000n;
    const out = new Map<string, string>();
    for (const entry of this.watched) {
      const found = entry.tree ? statTree(entry.root) : [[entry.root, statOf(entry.root)] as const];
      for (const [file, stat] of found) {
        if (stat === undefined || stat.isDirectory()) continue;
        this.kinds.set(file, entry.kind);
        out.set(
          file,
          this.cache.fingerprint(file, stat, () => fingerprintOf(file), started),
        );
      }
    }
    return out;
  }
}

/** What a watched file holds: its MCP servers for `~/.claude.json`, else its bytes, mode or link target. */
function fingerprintOf(file: string): string {
  if (path.basename(file) === '.claude.json') return claudeJsonServers(file);
  const state = readEntry(file);
  return state.kind === 'missing' || state.kind === 'dir' ? state.kind : fingerprint(state);
}

function fingerprint(state: EntryState): string {
  if (state.kind === 'file') return `file ${state.mode} ${createHash('sha256').update(state.bytes).digest('hex')}`;
  return state.kind === 'link' ? `link ${state.target}` : state.kind;
}

/**
 * `~/.claude.json` is Claude Code's own state too, rewritten as it runs (usage counts, tips): only
 * what configures sessions counts, the MCP servers (the user's, and each project's with its
 * approvals). A file that is not JSON counts whole.
 */
function claudeJsonServers(file: string): string {
  const text = readFileSync(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `text ${createHash('sha256').update(text).digest('hex')}`;
  }
  const doc = (parsed ?? {}) as { mcpServers?: unknown; projects?: Record<string, Record<string, unknown>> };
  const projects = Object.fromEntries(
    Object.entries(doc.projects ?? {}).map(([name, project]) => [
      name,
      { mcpServers: project?.mcpServers, enabled: project?.enabledMcpjsonServers, disabled: project?.disabledMcpjsonServers },
    ]),
  );
  return `servers ${createHash('sha256')
    .update(JSON.stringify({ servers: doc.mcpServers, projects }))
    .digest('hex')}`;
}
