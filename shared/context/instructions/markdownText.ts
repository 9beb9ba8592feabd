/**
 * The parts of a Markdown text that are prose, as opposed to code: HTML comments are stripped
 * from prose only, and `@path` imports are looked for in prose only, because a fence or a code
 * span showing `@types/node` or `<!-- -->` is an example, not a directive.
 */
export interface MarkdownSegment {
  text: string;
  code: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The text split into fenced code blocks and the prose between them, in order. */
export function splitFences(text: string): MarkdownSegment[] {
  const segments: MarkdownSegment[] = [];
  const lines = text.split(/(?<=\n)/);
  let prose = '';
  let code = '';
  let fence: string | undefined;
  for (const line of lines) {
    if (fence === undefined) {
      const open = FENCE.exec(line);
      if (open) {
        if (prose) segments.push({ text: prose, code: false });
        prose = '';
        fence = open[1]!;
        code = line;
      } else {
        prose += line;
      }
      continue;
    }
    code += line;
    const close = FENCE.exec(line);
    // A fence closes with at least as many of the same character and nothing else on the line.
    if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) {
      segments.push({ text: code, code: true });
      code = '';
      fence = undefined;
    }
  }
  if (fence !== undefined) segments.push({ text: code, code: true });
  if (prose) segments.push({ text: prose, code: false });
  return segments;
}

/** The text without HTML comments, except inside fenced code; an unclosed `<!--` is left alone. */
export function stripHtmlComments(text: string): string {
  return splitFences(text)
    .map((segment) => (segment.code ? segment.text : segment.text.replace(/<!--[\s\S]*?-->/g, '')))
    .join('')
    .replace(/\n{3,}/g, '\n\n');
}

/** Prose with inline code spans blanked out (same length), for searching directives. */
export function proseWithoutCodeSpans(text: string): string {
  return splitFences(text)
    .filter((segment) => !segment.code)
    .map((segment) => segment.text.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length)))
    .join('\n');
}
