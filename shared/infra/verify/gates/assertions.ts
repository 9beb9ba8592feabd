import { createHash } from 'node:crypto';
import type { StructuredPatchHunk } from 'diff';
import type { AssertionConfirmation, AssertionFlag } from '../evidence/evidence.js';
import { type FileChange, hunkText, testChanges } from '../evidence/testDiff.js';
import { defineGate, type VerdictOf } from './gate.js';

/** Advisory on a Worker's report and its merge: the Verification agent confirms or rejects each flag; unconfirmed, the work that made it is taken off the result. */
export const ASSERTIONS = defineGate({
  name: 'assertions',
  checks:
    "no change weakens the tests (assertions, tests or test files removed or loosened, a skip, only or todo added, the runner's selection changed) unless confirmed",
  report: 'advisory',
  merge: 'advisory',
  confirmedBy: 'verification',
});

/**
 * The assertions gate: a failing test can be made to pass by weakening it instead of fixing the
 * code. The diff of the test files (testFiles.ts says which) from base to head is audited, and
 * each of these is flagged with the hunk that shows it:
 * - assertion_removed: the file has fewer assertions than before (deleted or commented out);
 * - assertion_loosened: a hunk takes out an exact assertion (`toBe`, `toEqual`, `assert.equal`,
 *   `assertEqual`, `assert x == y`, `assert_eq!`, testify `Equal`, …) and puts in a vague one
 *   (`toBeDefined`, `toBeTruthy`, `not.toBeNull`, `toBeGreaterThan`, `toThrow()`, `assert.ok`,
 *   `assertTrue`, bare `assert x`, `assert!`, `NotNil`, …);
 * - skip_added / only_added / todo_added: more `.skip`, `xit`, `{ skip: true }`, `this.skip()`,
 *   `@pytest.mark.skip|skipif|xfail`, `@unittest.skip`, `pytest.skip(`, `t.Skip(`, `#[ignore]`;
 *   `.only`, `fit`/`fdescribe`; `.todo` than before;
 * - test_removed: fewer test cases than before (`it(`/`test(`, `def test_`, `func Test`, `#[test]`);
 * - test_file_removed: a test file deleted, or renamed to a name that is no test;
 * - runner_config_changed: a runner config hunk that touches which tests run (include/exclude,
 *   testMatch, testPathIgnorePatterns, python_files, addopts, the `test` script, …).
 * Comment lines are not counted as assertions or tests. Changing an expected value (toBe(4) to
 * toBe(5)) is not flagged: that is a change of the spec, for the Verification agent to judge.
 *
 * A flagged change cannot pass unless the Verification agent confirms each flag, by its id,
 * with a reason (`AssertionConfirmation`); see assertionsGate.
 */

const ASSERTION = [
  /\bexpect(?:TypeOf)?\s*\(/g,
  /\bassert(?:\.[a-z]\w*)?\s*\(/g,
  /\.should\b/g,
  /\bt\.(?:is|not|true|false|truthy|falsy|deepEqual|same|strictSame|equal|strictEqual|ok|notOk|throws|rejects|match|snapshot|fail)\s*\(/g,
  /^\s*assert\s+\S/gm,
  /\bself\.assert\w+\s*\(/g,
  /\bpytest\.raises\s*\(/g,
  /\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/g,
  /\b(?:assert|require)\.[A-Z]\w*\s*\(/g,
  /\b(?:debug_)?assert(?:_eq|_ne)?!\s*\(/g,
];

const EXACT = [
  /\.(?:toBe|toEqual|toStrictEqual|toMatchObject|toMatchInlineSnapshot|toMatchSnapshot|toHaveLength|toHaveBeenCalledWith|toHaveBeenCalledTimes|toHaveProperty|toContainEqual)\s*\(/g,
  /\.(?:toThrow|toThrowError|rejects\.toThrow)\s*\(\s*[^)\s]/g,
  /\bassert\.(?:equal|strictEqual|deepEqual|deepStrictEqual|notEqual|notStrictEqual|notDeepStrictEqual|throws|rejects|match)\s*\(/g,
  /\bself\.assert(?:Equal|Equals|DictEqual|ListEqual|TupleEqual|SetEqual|CountEqual|AlmostEqual|Raises|RaisesRegex|NotEqual|Is|In)\s*\(/g,
  /^\s*assert\s+.*(?:==|!=|\bnot in\b|\bin\b|\bis\b|<|>)/gm,
  /\bassert_(?:eq|ne)!\s*\(/g,
  /\b(?:assert|require)\.(?:Equal|Equalf|EqualValues|Exactly|ErrorIs|ErrorContains|Len|JSONEq|ElementsMatch)\s*\(/g,
  /\bt\.(?:is|deepEqual|same|strictSame|equal|strictEqual)\s*\(/g,
];

const VAGUE = [
  /\.(?:toBeDefined|toBeTruthy|toBeFalsy|toBeUndefined|toBeNull|toBeNaN|toBeInstanceOf|toBeGreaterThan|toBeGreaterThanOrEqual|toBeLessThan|toBeLessThanOrEqual|toContain|toMatch)\s*\(/g,
  /\.(?:toThrow|toThrowError)\s*\(\s*\)/g,
  /\bexpect\.(?:anything|any)\s*\(/g,
  /\bassert(?:\.ok)?\s*\(/g,
  /\bself\.assert(?:True|False|IsNotNone|IsNone|IsInstance)\s*\(/g,
  /^\s*assert\s+(?!.*(?:==|!=|<|>|\bnot in\b|\bin\b|\bis\b)).+$/gm,
  /\bassert!\s*\(/g,
  /\b(?:assert|require)\.(?:NotNil|Nil|True|False|NotEmpty|NoError|Error)\s*\(/g,
  /\bt\.(?:ok|truthy|true|pass)\s*\(/g,
];

const MARKERS: Record<'skip_added' | 'only_added' | 'todo_added', RegExp[]> = {
  skip_added: [
    /\b(?:it|test|describe|suite|context|specify)\.skip(?:If)?\b/g,
    /\bx(?:it|test|describe|context|specify)\s*\(/g,
    /\{[^}]*\bskip\s*:\s*(?:true|['"`])/g,
    /\bthis\.skip\s*\(/g,
    /@pytest\.mark\.(?:skip|skipif|xfail)\b/g,
    /@unittest\.skip\w*/g,
    /\bpytest\.skip\s*\(/g,
    /\bt\.Skip(?:f|Now)?\s*\(/g,
    /#\[ignore\]/g,
    /\btest\.fixme\s*\(/g,
  ],
  only_added: [/\b(?:it|test|describe|suite|context|specify)\.only\b/g, /\bf(?:it|describe)\s*\(/g, /\{[^}]*\bonly\s*:\s*true/g],
  todo_added: [/\b(?:it|test|describe)\.todo\b/g, /\{[^}]*\btodo\s*:\s*(?:true|['"`])/g],
};

const TEST_CASE = [
  /\b[xf]?(?:it|test|specify)(?:\.(?:skip|only|todo|concurrent|fails|each\b[^(]*))*\s*\(/g,
  /^\s*(?:async\s+)?def\s+test\w*\s*\(/gm,
  /^func\s+Test\w*\s*\(/gm,
  /#\[(?:tokio::)?test\]/g,
];

/** Lines in runner configs that decide which tests run. */
const SELECTION =
  /\b(?:include|exclude|testMatch|testRegex|testPathIgnorePatterns|testNamePattern|roots|python_files|python_functions|testpaths|addopts|norecursedirs|spec|grep|ignore|only|bail|passWithNoTests|allowOnly|filter)\b|--ignore|--deselect|-k\s|"test[\w:-]*"\s*:/;

const COMMENT = /^\s*(?:\/\/|\/\*|\*|#(?!\[)|--|<!--)/;

export interface AuditInput {
  repo: string;
  base: string;
  /** A commit, or absent for the working folder. */
  head?: string;
  /** The working folder's untracked files, where the host's watch listed them a moment ago (testChanges). */
  untracked?: readonly string[];
  /** That look's own status of the working folder (`git status --porcelain=v2 --branch -z`): a diff it shows holds no test is not asked for. */
  status?: string;
}

export async function auditTestChanges(input: AuditInput): Promise<AssertionFlag[]> {
  const changes = await testChanges(input.repo, input.base, input.head, input.untracked, input.status);
  return [...changes.tests.flatMap(testFileFlags), ...changes.configs.flatMap(configFlags)];
}

export function testFileFlags(change: FileChange): AssertionFlag[] {
  if (change.status === 'added') return [];
  if (change.status === 'deleted') {
    const lost = count(change.before, TEST_CASE);
    const renamed = change.oldPath !== undefined ? ` (renamed to ${change.path}, which is no test file)` : '';
    return [
      flag(
        change.oldPath ?? change.path,
        'test_file_removed',
        `the test file was deleted${renamed}, with ${lost} test case(s) and ${count(change.before, ASSERTION)} assertion(s)`,
        change.hunks,
      ),
    ];
  }
  const file = change.path;
  const flags: AssertionFlag[] = [];
  const fewer = (patterns: RegExp[]) => [count(change.before, patterns), count(change.after, patterns)] as const;

  const [assertionsBefore, assertionsAfter] = fewer(ASSERTION);
  if (assertionsAfter < assertionsBefore) {
    flags.push(
      flag(
        file,
        'assertion_removed',
        `${assertionsBefore} assertion(s) before, ${assertionsAfter} after`,
        hunksWhere(change.hunks, (hunk) => lineCount(hunk, '-', ASSERTION) > lineCount(hunk, '+', ASSERTION)),
      ),
    );
  }
  for (const hunk of change.hunks) {
    const exactOut = lineCount(hunk, '-', EXACT) - lineCount(hunk, '+', EXACT);
    const vagueIn = lineCount(hunk, '+', VAGUE) - lineCount(hunk, '-', VAGUE);
    if (exactOut > 0 && vagueIn > 0) {
      flags.push(
        flag(file, 'assertion_loosened', `${exactOut} exact assertion(s) replaced by ${vagueIn} vaguer one(s) at line ${hunk.newStart}`, [
          hunk,
        ]),
      );
    }
  }
  for (const kind of ['skip_added', 'only_added', 'todo_added'] as const) {
    const [before, after] = fewer(MARKERS[kind]);
    if (after > before) {
      const what = kind === 'skip_added' ? 'skip' : kind === 'only_added' ? 'only (focus)' : 'todo';
      flags.push(
        flag(
          file,
          kind,
          `${after - before} more ${what} marker(s) than before (${before} → ${after})`,
          hunksWhere(change.hunks, (hunk) => lineCount(hunk, '+', MARKERS[kind]) > lineCount(hunk, '-', MARKERS[kind])),
        ),
      );
    }
  }
  const [testsBefore, testsAfter] = fewer(TEST_CASE);
  if (testsAfter < testsBefore) {
    flags.push(
      flag(
        file,
        'test_removed',
        `${testsBefore} test case(s) before, ${testsAfter} after`,
        hunksWhere(change.hunks, (hunk) => lineCount(hunk, '-', TEST_CASE) > lineCount(hunk, '+', TEST_CASE)),
      ),
    );
  }
  return flags;
}

export function configFlags(change: FileChange): AssertionFlag[] {
  return change.hunks
    .filter((hunk) => hunk.lines.some((line) => (line.startsWith('+') || line.startsWith('-')) && SELECTION.test(line.slice(1))))
    .map((hunk) =>
      flag(change.path, 'runner_config_changed', `a change to ${change.path} touches which tests run (line ${hunk.newStart})`, [hunk]),
    );
}

/**
 * The gate: passes when nothing is flagged, or when every flag has a confirmation (by id, with a
 * reason). Confirmations of ids not flagged are ignored. The reason lists each unconfirmed flag
 * with its id, so the Verification agent can answer it.
 */
export function assertionsGate(
  flags: readonly AssertionFlag[],
  confirmations: readonly AssertionConfirmation[] = [],
): VerdictOf<typeof ASSERTIONS> {
  if (flags.length === 0)
    return ASSERTIONS.verdict(true, 'no test file lost an assertion, a test or a file, and none gained a skip, only or todo');
  const confirmed = new Map(confirmations.map((confirmation) => [confirmation.flag, confirmation.reason]));
  const open = flags.filter((one) => !confirmed.has(one.id));
  if (open.length === 0) {
    return ASSERTIONS.verdict(
      true,
      `${flags.length} flagged change(s), each confirmed by the Verification agent: ${flags.map((one) => `${one.id} (${confirmed.get(one.id)})`).join('; ')}`,
    );
  }
  const list = open.map((one) => `[${one.id}] ${one.file}: ${one.kind.replace(/_/g, ' ')}, ${one.detail}`).join('; ');
  return ASSERTIONS.verdict(false, `${open.length} change(s) to tests need the Verification agent's confirmation: ${list}`);
}

function flag(file: string, kind: AssertionFlag['kind'], detail: string, hunks: readonly StructuredPatchHunk[]): AssertionFlag {
  const hunk = hunks.map(hunkText).join('\n');
  const id = createHash('sha256').update(`${file}\n${kind}\n${hunk}`).digest('hex').slice(0, 12);
  return { id, file, kind, detail, hunk };
}

function hunksWhere(hunks: readonly StructuredPatchHunk[], test: (hunk: StructuredPatchHunk) => boolean): StructuredPatchHunk[] {
  const picked = hunks.filter(test);
  // A change spread over several hunks (moved here, removed there) shows them all.
  return picked.length > 0 ? picked : [...hunks];
}

/** Matches of `patterns` in the non-comment lines of `text`. */
function count(text: string, patterns: readonly RegExp[]): number {
  return text.split('\n').reduce((total, line) => total + lineMatches(line, patterns), 0);
}

function lineCount(hunk: StructuredPatchHunk, sign: '+' | '-', patterns: readonly RegExp[]): number {
  return hunk.lines.filter((line) => line.startsWith(sign)).reduce((total, line) => total + lineMatches(line.slice(1), patterns), 0);
}

function lineMatches(line: string, patterns: readonly RegExp[]): number {
  if (COMMENT.test(line)) return 0;
  return patterns.reduce((total, pattern) => total + [...line.matchAll(pattern)].length, 0);
}
