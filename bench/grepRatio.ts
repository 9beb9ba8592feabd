import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReadFileState } from '../shared/core/files/readFileState.js';
import { Workspace } from '../shared/core/files/workspace.js';
import type { ToolContext } from '../shared/core/tool/tool.js';
import { type GrepInput, grepTool } from '../shared/tools/grep.js';
import { ripgrepPath } from '../shared/tools/search/ripgrep.js';
import { median, round } from './stats.js';

/**
 * The Grep tool against raw `rg` on the large repository, for the same pattern and the same
 * output. The comparison, so that neither side is let off work the other does:
 * - raw rg runs with the flags the tool gives it (hidden files, .gitignore only, `.git` excluded,
 *   case-sensitive, line numbers), without a path argument so its paths read as the tool's do,
 *   and its whole stdout is read through a pipe into this process, as a caller of rg would;
 * - the tool is called as an agent's call reaches it (input parsed by its schema, path resolved
 *   through the workspace) and its whole answer is a string in this process;
 * - both outputs hold the same lines: checked on every run (rg's order varies from run to run, so
 *   they are compared sorted); the tool's sorting and formatting are part of what it costs.
 * Runs alternate, tool then rg, after a warm-up of each, and the ratio is of the medians.
 */
export const GREP_RATIO_TARGET = 1.2;

interface GrepCase {
  name: string;
  input: GrepInput;
  /** rg's mode flags for the same search. */
  rgMode: string[];
  /** The tool's answer as rg's lines, for the equality check. */
  toolLines: (content: string) => string[];
}

const PATTERN = 'legacyTotal\\(';

const CASES: GrepCase[] = [
  {
    name: 'content',
    input: { pattern: PATTERN, output_mode: 'content', '-n': true },
    rgMode: ['--line-number'],
    toolLines: (content) => content.split('\n').filter(Boolean),
  },
  {
    name: 'files_with_matches',
    input: { pattern: PATTERN, output_mode: 'files_with_matches' },
    rgMode: ['--files-with-matches'],
    // The tool's first line says how many files; the rest are the paths.
    toolLines: (content) => content.split('\n').slice(1).filter(Boolean),
  },
  {
    name: 'count',
    input: { pattern: PATTERN, output_mode: 'count' },
    rgMode: ['--count'],
    toolLines: (content) => content.split('\n').filter((line) => /:\d+$/.test(line)),
  },
];

export interface GrepCaseResult {
  mode: string;
  tool_ms: number;
  rg_ms: number;
  ratio: number;
  lines: number;
}

export interface GrepRatioResult {
  grep_ratio: number;
  cases: GrepCaseResult[];
  repetitions: number;
}

export async function grepRatioBenchmark(repo: string, options: { repetitions?: number } = {}): Promise<GrepRatioResult> {
  const rg = ripgrepPath();
  if (!rg) throw new Error('rg is not on PATH: the grep benchmark compares the Grep tool with it');
  const repetitions = options.repetitions ?? 15;
  const sessionDir = mkdtempSync(path.join(os.tmpdir(), 'orca-bench-grep-'));
  const ctx: ToolContext = {
    workspace: new Workspace(repo, { extraReadRoots: [sessionDir] }),
    fileState: new ReadFileState(),
    signal: new AbortController().signal,
    session: { id: 'bench', role: 'explore', dir: sessionDir },
    shell: { env: {}, defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000 },
    mode: 'read-only',
    emit: () => {},
    services: {},
  };
  try {
    const cases: GrepCaseResult[] = [];
    for (const grepCase of CASES) {
      const toolRun = async () => (await grepTool.call(grepTool.input.parse(grepCase.input), ctx)).content;
      const rgRun = () => runRg(rg, repo, grepCase.rgMode);
      const toolLines = grepCase.toolLines(await toolRun());
      const rgLines = (await rgRun()).split('\n').filter(Boolean);
      if (toolLines.length === 0 || [...toolLines].sort().join('\n') !== [...rgLines].sort().join('\n')) {
        throw new Error(`the Grep tool and rg disagree in ${grepCase.name} mode (${toolLines.length} vs ${rgLines.length} lines)`);
      }
      const toolMs: number[] = [];
      const rgMs: number[] = [];
      for (let rep = 0; rep < repetitions; rep += 1) {
        toolMs.push(await timed(toolRun));
        rgMs.push(await timed(rgRun));
      }
      const tool = median(toolMs);
      const raw = median(rgMs);
      cases.push({
        mode: grepCase.name,
        tool_ms: round(tool, 1),
        rg_ms: round(raw, 1),
        ratio: round(tool / raw, 3),
        lines: toolLines.length,
      });
    }
    return { grep_ratio: cases[0]!.ratio, cases, repetitions };
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function runRg(rg: string, cwd: string, mode: string[]): Promise<string> {
  const args = [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-dot',
    '--no-ignore-exclude',
    '--no-ignore-global',
    '--no-heading',
    '--with-filename',
    '--color=never',
    '--case-sensitive',
    ...mode,
    '--glob=!.git',
    `--regexp=${PATTERN}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`rg exited ${code}: ${stderr}`));
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
