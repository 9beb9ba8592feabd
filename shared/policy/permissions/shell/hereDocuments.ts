/**
 * Here-documents, for the shell parser, which cannot read them: the command with each
 * here-document's body taken out and its operator made a plain input redirection
 * (`cat > "$TMPDIR/probe.mjs" <<'EOF'` … `EOF` becomes `cat > "$TMPDIR/probe.mjs" </dev/null`),
 * so what it runs and where it writes can be checked. The body is data only when nothing in it
 * runs: a quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`), or an unquoted one whose body has no
 * `$` or backquote. A command the scan cannot follow for certain (command or process
 * substitution outside a body, a body without its delimiter line, a body that may expand) comes
 * back undefined (and so does ANSI-C quoting), and the caller refuses it as before: a misread here would hide the lines after
 * an operator from the checks.
 */
export function withoutHereDocuments(command: string): string | undefined {
  if (!command.includes('<<')) return command;
  let out = '';
  let quote: "'" | '"' | undefined;
  let atWordStart = true;
  const pending: HereDocument[] = [];
  let i = 0;
  while (i < command.length) {
    const char = command[i]!;
    if (quote === "'") {
      out += char;
      if (char === "'") quote = undefined;
      i += 1;
      continue;
    }
    if (char === '\\') {
      out += command.slice(i, i + 2);
      i += 2;
      atWordStart = false;
      continue;
    }
    // Substitutions and ANSI-C quoting (`$'…\'…'`) quote by rules this scan does not follow.
    if (
      char === '`' ||
      (char === '$' && (command[i + 1] === '(' || command[i + 1] === "'")) ||
      ((char === '<' || char === '>') && command[i + 1] === '(')
    ) {
      return undefined;
    }
    if (quote === '"') {
      out += char;
      if (char === '"') quote = undefined;
      i += 1;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      out += char;
      i += 1;
      atWordStart = false;
      continue;
    }
    if (char === '#' && atWordStart) {
      // A comment runs to the end of the line, here-document operators included.
      const end = command.indexOf('\n', i);
      out += end < 0 ? command.slice(i) : command.slice(i, end);
      i = end < 0 ? command.length : end;
      continue;
    }
    if (char === '<' && command[i + 1] === '<' && command[i + 2] !== '<' && command[i - 1] !== '<') {
      const operator = hereOperator(command, i);
      if (!operator) return undefined;
      pending.push(operator.doc);
      out += '</dev/null';
      i += operator.length;
      atWordStart = false;
      continue;
    }
    if (char === '\n' && pending.length > 0) {
      out += '\n';
      const past = pastBodies(command, i + 1, pending.splice(0));
      if (past === undefined) return undefined;
      i = past;
      if (i > command.length) return out.replace(/\n$/, '');
      atWordStart = true;
      continue;
    }
    out += char;
    atWordStart = /[\s;&|()]/.test(char);
    i += 1;
  }
  return pending.length > 0 ? undefined : out;
}

interface HereDocument {
  delimiter: string;
  /** Its delimiter was quoted: the body is data, whatever it holds. */
  quoted: boolean;
  /** `<<-`: leading tabs are stripped from the body's lines and the delimiter line. */
  stripTabs: boolean;
}

/** The here-document operator at `at` (`<<EOF`, `<<-'EOF'`, …) and its length; undefined for one this scan cannot read. */
function hereOperator(command: string, at: number): { doc: HereDocument; length: number } | undefined {
  const operator = /^<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z0-9_.-]+))/.exec(command.slice(at));
  if (!operator) return undefined;
  const delimiter = operator[2] ?? operator[3] ?? operator[4]!;
  const quoted = operator[2] !== undefined || operator[3] !== undefined || command[at + 2 + operator[1]!.length] === '\\';
  return { doc: { delimiter, quoted, stripTabs: operator[1] === '-' }, length: operator[0].length };
}

/**
 * Past the bodies of the here-documents a line's operators opened, from the line after it: the
 * index after the last delimiter line (past the end when that was the last line), or undefined
 * when a body has no delimiter line or may expand.
 */
function pastBodies(command: string, from: number, docs: readonly HereDocument[]): number | undefined {
  let i = from;
  for (const doc of docs) {
    const body: string[] = [];
    for (;;) {
      if (i > command.length) return undefined; // no delimiter line: bash would read to the end
      const end = command.indexOf('\n', i);
      const line = end < 0 ? command.slice(i) : command.slice(i, end);
      i = end < 0 ? command.length + 1 : end + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break;
      body.push(line);
    }
    if (!doc.quoted && body.some((line) => /[$`]/.test(line))) return undefined;
  }
  return i;
}
