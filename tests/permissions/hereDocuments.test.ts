import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../shared/policy/permissions/shell/bashAnalysis.js';
import { withoutHereDocuments } from '../../shared/policy/permissions/shell/hereDocuments.js';

describe('here-documents for the shell analysis', () => {
  it('takes out the body of a quoted here-document, which is data', () => {
    expect(
      withoutHereDocuments(`cat > "$TMPDIR/probe.mjs" <<'EOF'\nconsole.log($HOME, \`x\`, $(id));\nEOF\nnode "$TMPDIR/probe.mjs"`),
    ).toBe('cat > "$TMPDIR/probe.mjs" </dev/null\nnode "$TMPDIR/probe.mjs"');
    expect(withoutHereDocuments('cat <<-"END" > notes.txt\n\tsome text\n\tEND')).toBe('cat </dev/null > notes.txt');
    expect(withoutHereDocuments('cat <<EOF\nplain words\nEOF')).toBe('cat </dev/null');
  });

  it('checks what runs around it, and where it writes', () => {
    const analysis = analyzeBash(`cat > "$TMPDIR/probe.mjs" <<'EOF'\nconsole.log(6 * 7);\nEOF\nnode "$TMPDIR/probe.mjs" && rm -rf build`);
    expect(analysis.ok).toBe(true);
    if (!analysis.ok) return;
    expect(analysis.commands.map((command) => command.argv.map((word) => word.value).join(' '))).toEqual([
      'cat',
      'node "$TMPDIR/probe.mjs"',
      'rm -rf build',
    ]);
    expect(analysis.writes.map((write) => write.target.raw)).toEqual(['"$TMPDIR/probe.mjs"']);
  });

  it('refuses what it cannot follow for certain, as before', () => {
    // An unquoted delimiter expands its body: `$(…)` there runs.
    expect(withoutHereDocuments('cat <<EOF\n$(rm -rf /)\nEOF')).toBeUndefined();
    // No delimiter line: bash reads to the end, and so the analysis cannot tell where the body ends.
    expect(withoutHereDocuments("cat <<'EOF'\ntext")).toBeUndefined();
    // Command substitution outside a body: the scan does not follow its quoting.
    expect(withoutHereDocuments(`echo "$(echo "<<'X'")"\nrm -rf /\nX`)).toBeUndefined();
    // ANSI-C quoting: `\'` does not end the string, so the `<<X` is inside it and the next line runs.
    expect(withoutHereDocuments(`echo $'\\' <<X'\nrm -rf /\nX`)).toBeUndefined();
    expect(analyzeBash('cat <<EOF\n$(rm -rf /)\nEOF').ok).toBe(false);
  });

  it('leaves `<<` inside quotes, comments and here-strings alone', () => {
    expect(withoutHereDocuments(`echo "a <<'X' b"\nrm -rf build\nX`)).toBe(`echo "a <<'X' b"\nrm -rf build\nX`);
    expect(withoutHereDocuments(`echo hi # <<'X'\nrm -rf build\nX`)).toBe(`echo hi # <<'X'\nrm -rf build\nX`);
    expect(withoutHereDocuments('grep x <<< "$text"')).toBe('grep x <<< "$text"');
  });
});
