import { createHash } from 'node:crypto';
import { loadDescription } from '../../core/tool/tool.js';
import { isUntrustedOutput, type ToolFacts } from '../../core/tool/toolFacts.js';

const NOTE = loadDescription(import.meta.url, './untrustedNote.txt');
const WARNING = loadDescription(import.meta.url, './untrustedWarning.txt');

const SUSPICIOUS: { what: string; pattern: RegExp }[] = [
  {
    what: 'tells you to ignore earlier instructions',
    pattern:
      /\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|any|your|system)\b.{0,20}\b(instructions?|prompts?|rules|directions|guidelines)\b/i,
  },
  // Capitalised only: lower-case `user:` is far more often a YAML key than a turn marker.
  {
    what: 'poses as a system, user or assistant message',
    pattern: /^\s*(#+\s*|\*\*)?\s*(SYSTEM|System|ASSISTANT|Assistant|USER|User|HUMAN|Human|DEVELOPER|Developer)\s*(:|\*\*)/,
  },
  { what: 'poses as a system, user or assistant message', pattern: /^\s*\[\s*(system|assistant|user|human|developer)\s*\]/i },
  {
    what: 'a role or chat-template tag',
    pattern: /<\/?(system|user|assistant|human|developer)\b[^>]*>|<\|(im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]/i,
  },
  { what: 'a fake end of the data block', pattern: /<\/?untrusted/i },
  { what: 'tool-call markup', pattern: /<\/?(function_calls|invoke|tool_use|tool_result|function_results|antml:[a-z_]+)\b/i },
  {
    what: 'claims to give new instructions or a new role',
    pattern:
      /\b(new|updated|real|actual|important)\s+(system\s+)?instructions?\s*:|\byou are now\b|\bfrom now on,? you\b|\bdeveloper mode\b/i,
  },
  { what: 'poses as an instruction', pattern: /忽略(之前|以上|先前|所有)的?(指令|指示|限制|规则)|系统(重要)?指令/ },
];

const MAX_FINDINGS = 5;

export interface SuspiciousLine {
  line: number;
  what: string;
  text: string;
}

/** The lines of `content` that look like instructions aimed at the model, first five. */
export function findSuspiciousLines(content: string): SuspiciousLine[] {
  const found: SuspiciousLine[] = [];
  const lines = content.split('\n');
  for (let index = 0; index < lines.length && found.length < MAX_FINDINGS; index += 1) {
    const line = lines[index]!;
    const hit = SUSPICIOUS.find(({ pattern }) => pattern.test(line));
    if (hit) found.push({ line: index + 1, what: hit.what, text: line.trim().slice(0, 80) });
  }
  return found;
}

/**
 * The text the model sees for a tool's result. Results that carry text from outside orca (files,
 * command output, search hits, anything fetched) reach the model fenced and labelled as data, so
 * text inside that poses as an instruction ("ignore previous instructions", "SYSTEM:", a fake end
 * marker) reads as what it is: the content between two markers whose id is derived from the
 * content (so the content cannot contain its own end marker), after a note saying it is data and
 * a warning naming any suspicious lines. Results orca writes itself (a tool whose
 * `untrustedOutput` is false) pass unchanged.
 */
export function presentToolResult(tool: ToolFacts, content: string): string {
  if (!isUntrustedOutput(tool) || content === '') return content;
  const toolName = tool.name;
  const id = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const parts: string[] = [];
  const findings = findSuspiciousLines(content);
  if (findings.length > 0) {
    const listed = findings.map((finding) => `line ${finding.line}: ${finding.what}: ${JSON.stringify(finding.text)}`).join('; ');
    parts.push(fill(WARNING, { source: toolName, findings: listed }));
  }
  parts.push(fill(NOTE, { source: toolName, id }));
  parts.push(`<untrusted-data source="${toolName}" id="${id}">`, content, `</untrusted-data id="${id}">`);
  return parts.join('\n');
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
