import { z } from 'zod';

/**
 * The evidence a check leaves, as schemas (what the gates say about it: gates/gateList.ts): evidence travels
 * from worker processes to the coordinator and into the run's JSON, so it is checked where it
 * arrives. "Tests pass" holds four things here: which command, on which tree, how many tests
 * ran, with what exit code.
 */

const Port = z.number().int().min(1).max(65_535);

/**
 * A check as the coordinator or a plan names it: a command line, or an object when it needs more.
 * `target_ports`: the ports of servers the check talks to (see gates/target.ts for the ports read
 * from the command itself). `junit`: JUnit XML files (globs, relative to the check's folder) the
 * check writes. `timeout_ms`: how long it may run.
 */
export const CheckSpecSchema = z.union([
  z
    .string()
    .trim()
    .min(1, 'a check is a command line: it is empty')
    .transform((command) => ({ command })),
  z.strictObject({
    command: z.string().trim().min(1, 'a check is a command line: it is empty'),
    target_ports: z.array(Port).optional(),
    junit: z.array(z.string().min(1)).optional(),
    timeout_ms: z.number().int().positive().optional(),
  }),
]);
export type CheckSpecInput = z.input<typeof CheckSpecSchema>;
export type CheckSpec = z.output<typeof CheckSpecSchema>;

/** Test counts a parser found. `executed` is passed + failed: skipped and todo tests did not run. */
export const KnownTestCountsSchema = z.object({
  known: z.literal(true),
  /** Where the counts came from: the runner's own output, or JUnit XML it wrote. */
  source: z.enum(['output', 'junit']),
  /** The runners whose output was recognised (`vitest`, `pytest`, …; several when one check ran several). */
  runners: z.array(z.string()).min(1),
  executed: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  todo: z.number().int().min(0),
});

/** No runner's output was recognised: the counts are unknown, and `reason` says so and why. */
export const UnknownTestCountsSchema = z.object({ known: z.literal(false), reason: z.string() });

export const TestCountsSchema = z.discriminatedUnion('known', [KnownTestCountsSchema, UnknownTestCountsSchema]);
export type KnownTestCounts = z.infer<typeof KnownTestCountsSchema>;
export type TestCounts = z.infer<typeof TestCountsSchema>;

/** Who listened on a port the check talks to, seen just before or while it ran. */
export const TargetObservationSchema = z.object({
  port: Port,
  /** `never`: nothing listened on the port while the check ran. */
  seen: z.enum(['before', 'during', 'never']),
  pid: z.number().int().nullable(),
  /** The listening process's working directory (from /proc/<pid>/cwd), when it could be read. */
  cwd: z.string().nullable(),
  command: z.string().nullable(),
});
export type TargetObservation = z.infer<typeof TargetObservationSchema>;

/** `tampered`: it changed what a check may not (a ref of the repository); that was put back, and `tampered` names it. */
export const CheckOutcomeSchema = z.enum(['exited', 'killed', 'timed_out', 'aborted', 'refused', 'tampered']);

export const CheckEvidenceSchema = z.object({
  command: z.string(),
  /**
   * The whole command line, when `command` is its first stage (`npm test 2>&1 | tail -5` ran
   * `npm test`): the exit code and the judgement are that stage's.
   */
  command_line: z.string().optional(),
  cwd: z.string(),
  /** The hash of the tree the check ran on (treeHash.ts), taken BEFORE it ran. */
  tree: z.string(),
  /** A file listing that tree, path by path, so a later change can be named. */
  tree_manifest: z.string().optional(),
  started_at: z.number(),
  finished_at: z.number(),
  duration_ms: z.number().min(0),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  outcome: CheckOutcomeSchema,
  /** What the check changed that it may not, each put back (`refs/heads/main moved from … to …`); with it the outcome is `tampered`. */
  tampered: z.array(z.string()).optional(),
  /** The whole output (stdout, then stderr unless `stderr_log` holds it). */
  log: z.string(),
  stderr_log: z.string().optional(),
  counts: TestCountsSchema,
  /** The ports the check talks to (declared or read from its command) and who listened there. */
  target_ports: z.array(Port).default([]),
  targets: z.array(TargetObservationSchema).default([]),
  /** `host`: orca ran it (integration checks); `agent`: an agent's Bash call, recorded by the host. */
  ran_by: z.enum(['host', 'agent']),
  tool_use_id: z.string().optional(),
});
export type CheckEvidence = z.infer<typeof CheckEvidenceSchema>;
export type CheckEvidenceInput = z.input<typeof CheckEvidenceSchema>;

export const ASSERTION_FLAG_KINDS = [
  'assertion_removed',
  'assertion_loosened',
  'skip_added',
  'only_added',
  'todo_added',
  'test_removed',
  'test_file_removed',
  'runner_config_changed',
] as const;

/** One change to the tests that may make a failing test pass without fixing anything. */
export const AssertionFlagSchema = z.object({
  /** Stable for the same change: the Verification agent confirms flags by this id. */
  id: z.string(),
  file: z.string(),
  kind: z.enum(ASSERTION_FLAG_KINDS),
  detail: z.string(),
  /** The hunk of the diff that shows it (unified diff text). */
  hunk: z.string(),
});
export type AssertionFlag = z.infer<typeof AssertionFlagSchema>;

/** The Verification agent's word that a flagged change is right, and why. */
export const AssertionConfirmationSchema = z.object({
  flag: z.string().min(1),
  reason: z.string().trim().min(1, 'say why the flagged change is right'),
});
export type AssertionConfirmation = z.infer<typeof AssertionConfirmationSchema>;

/** A check an agent says it ran (worker `claimed_checks`, verification `checks`). */
export const ClaimedCheckSchema = z.object({ command: z.string(), exit_code: z.number().int() });
export type ClaimedCheck = z.infer<typeof ClaimedCheckSchema>;

/** One command an agent ran, from its own tool log: what its claimed checks are held against. */
export const CheckRecordSchema = z.object({
  command: z.string(),
  exit_code: z.number().int().nullable(),
  at: z.number(),
  output_file: z.string().optional(),
});
export type CheckRecord = z.infer<typeof CheckRecordSchema>;
