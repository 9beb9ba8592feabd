import { open } from 'node:fs/promises';

/**
 * The last `bytes` of a file as text, and whether the start was cut off. When cut, the first
 * (partial) line is dropped so every line shown is whole.
 */
export async function fileTail(file: string, bytes: number): Promise<{ text: string; cut: boolean }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return { text, cut: start > 0 };
  } finally {
    await handle.close();
  }
}
