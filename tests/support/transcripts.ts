import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every `transcript.jsonl` under `home` (an orca home: one per agent session), in the order the folders list. */
export function transcriptFiles(home: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name === 'transcript.jsonl') files.push(path.join(dir, entry.name));
    }
  };
  walk(home);
  return files;
}

/** The lines of one transcript, each parsed. */
export function transcriptLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The lines of every transcript under `home`, file after file. */
export function transcriptsOf(home: string): Array<Record<string, unknown>> {
  return transcriptFiles(home).flatMap(transcriptLines);
}
