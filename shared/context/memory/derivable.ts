/**
 * What a card must not carry because the repository already tells it, fresher than any memory:
 * a place in the code (`path:line`), code itself, a commit, a test run's counts, a stack trace
 * (seed 000, section 5.1). Each finding names what it saw and where that knowledge lives instead.
 */
export interface Derivable {
  what: string;
  /** The words that gave it away. */
  seen: string;
  instead: string;
}

const SOURCE_EXTENSIONS =
  'tsx?|jsx?|mjs|cjs|py|rb|go|rs|java|kts?|c|h|cc|cpp|hpp|cs|php|swift|scala|md|json|ya?ml|toml|sh|sql|css|scss|html?|vue|svelte|txt|lua|exs?|erl|hs|ml|clj|dart|proto';

interface Rule {
  what: string;
  pattern: RegExp;
  instead: string;
}

const RULES: Rule[] = [
  {
    what: 'a file path with a line number',
    // A source file's extension, so that a host and port (`grafana.acme.io:3000`) is not taken for one.
    pattern: new RegExp(`[\\w@~./-]+\\.(?:${SOURCE_EXTENSIONS})(?::\\d+)+\\b`, 'i'),
    instead: 'the code says where things are: name the concept, not the place',
  },
  {
    what: 'a stack trace',
    pattern: /^\s*at\s+\S.*\(?[^\s()]+:\d+:\d+\)?\s*$|Traceback \(most recent call last\)|^\s*File "[^"]+", line \d+/m,
    instead: 'a run shows its own failures: keep the lesson, not the trace',
  },
  {
    what: 'a commit sha',
    // Seven or more hex digits with both a digit and a letter: a plain number or an English word is not a sha.
    pattern: /\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/i,
    instead: 'git log tells which commit did what',
  },
  {
    what: 'test counts',
    pattern:
      /\b\d+\s+(?:tests?|specs?|examples?|assertions?)?\s*(?:passed|passing|failed|failing|skipped)\b|\b(?:tests?|passed|failed)\s*:\s*\d+\b|\b\d+\s*\/\s*\d+\s+tests?\b/i,
    instead: 'a test run tells how many pass today',
  },
  {
    what: 'code (a function body or a code block)',
    pattern:
      /```|\b(?:function|def|fn|func)\s+[A-Za-z_$][\w$]*\s*\([^)]*\)\s*(?:[:{]|->|=>)|=>\s*\{|\)\s*\{[^}]*;[^}]*\}|\bclass\s+[A-Z]\w*\s*(?:extends\s+\w+\s*)?\{/,
    instead: 'the code is in the repository: say what it is for, or the rule it follows',
  },
];

export function derivableIn(text: string): Derivable[] {
  const out: Derivable[] = [];
  for (const rule of RULES) {
    const match = rule.pattern.exec(text);
    if (match) out.push({ what: rule.what, seen: match[0].trim().slice(0, 80), instead: rule.instead });
  }
  return out;
}
