import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { CLAUDE_CODE_ONLY_EVENTS, HOOK_EVENTS, type HookEventName } from './hookEvents.js';
import { compileMatcher, type Matcher } from './matcher.js';

/**
 * The `hooks` key of a Claude Code settings file, in Claude Code's schema:
 * `{ "<Event>": [ { "matcher": "…", "hooks": [ { "type": "command", "command": "…", "timeout": 30 } ] } ] }`.
 * Claude Code fields orca cannot honour (async, once, if, other hook types) are refused with a
 * message saying so, rather than ignored: a hook that silently behaves differently is worse
 * than one that does not load.
 */

const notSupported = (what: string) => ({ error: what });

const timeout = z.number().positive().optional(); // seconds
const onFailure = z.enum(['continue', 'block']).optional();
const asyncField = z
  .literal(
    false,
    notSupported('orca waits for every hook and uses its answer; async hooks are not supported: remove "async" or set it to false'),
  )
  .optional();
const ifField = z
  .never(notSupported('the "if" condition is not supported by orca; use a matcher, or test the condition inside the hook'))
  .optional();
const onceField = z
  .literal(false, notSupported('"once" is not supported by orca; every matching hook runs each time its event fires'))
  .optional();

export const CommandHookSchema = z.strictObject({
  type: z.literal('command'),
  /** A bash command line; with `args`, the program to run directly, without a shell. */
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  timeout,
  onFailure,
  statusMessage: z.string().optional(),
  shell: z.literal('bash', notSupported('orca runs command hooks with bash; "shell" may only be "bash"')).optional(),
  async: asyncField,
  once: onceField,
  if: ifField,
});

export const HttpHookSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  /** `$VAR` / `${VAR}` in values are expanded, for the names in allowedEnvVars only. */
  headers: z.record(z.string(), z.string()).optional(),
  allowedEnvVars: z.array(z.string()).optional(),
  timeout,
  onFailure,
  statusMessage: z.string().optional(),
  async: asyncField,
  once: onceField,
  if: ifField,
});

export const HookHandlerSchema = z.discriminatedUnion('type', [CommandHookSchema, HttpHookSchema], {
  error: (issue) =>
    issue.code === 'invalid_union'
      ? 'type must be "command" or "http" (Claude Code\'s prompt, agent and mcp_tool hooks are not supported by orca)'
      : undefined,
});

const MatcherSchema = z.string().superRefine((pattern, ctx) => {
  try {
    compileMatcher(pattern);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

export const HookGroupSchema = z.strictObject({
  matcher: MatcherSchema.optional(),
  hooks: z.array(HookHandlerSchema),
});

const claudeCodeOnly = new Set<string>(CLAUDE_CODE_ONLY_EVENTS);

export const HooksSettingSchema = z.strictObject(
  Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(HookGroupSchema).optional()])) as Record<
    HookEventName,
    z.ZodOptional<z.ZodArray<typeof HookGroupSchema>>
  >,
  {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      // Claude Code's own events never get here: parseHooksConfig sets them aside first.
      return `unknown hook event ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}. orca fires: ${HOOK_EVENTS.join(', ')}`;
    },
  },
);

export type CommandHook = z.infer<typeof CommandHookSchema>;
export type HttpHook = z.infer<typeof HttpHookSchema>;
export type HookHandler = z.infer<typeof HookHandlerSchema>;

/** One matcher group, ready to run: its matcher compiled, and the file it came from. */
export interface HookGroup {
  matcher?: string;
  matches: Matcher;
  hooks: HookHandler[];
  source: string;
}

/** A Claude Code event a settings file has hooks for that orca never fires, and the file. */
export interface NotFiredEvent {
  event: string;
  source: string;
}

/** Every configured hook group, by event, in settings order (user, project, local). */
export interface HooksConfig {
  readonly byEvent: Partial<Record<HookEventName, readonly HookGroup[]>>;
  /** Claude Code events with hooks orca keeps but never fires: reported once, the rest of the file applies. */
  readonly notFired?: readonly NotFiredEvent[];
}

export const NO_HOOKS: HooksConfig = { byEvent: {} };

/** Whether any hook is configured, for any event: then code of the user's may run beside the agent's calls. */
export function anyHook(config: HooksConfig): boolean {
  return Object.values(config.byEvent).some((groups) => groups !== undefined && groups.length > 0);
}

/** The one line that tells the user which configured events orca does not fire, or undefined. */
export function notFiredNotice(config: HooksConfig): string | undefined {
  const notFired = config.notFired ?? [];
  if (notFired.length === 0) return undefined;
  const events = [...new Set(notFired.map((entry) => entry.event))];
  const sources = [...new Set(notFired.map((entry) => entry.source))];
  return `hooks: not fired by orca: ${events.join(', ')} (in ${sources.join(', ')}); the other hooks of ${sources.length === 1 ? 'that file' : 'those files'} apply`;
}

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    /** The session's hooks, for the tools that fire their own events (TaskCreated, TaskCompleted). */
    hooks?: HooksConfig;
  }
}

export class HooksConfigError extends Error {
  override readonly name = 'HooksConfigError';
}

/** The `hooks` value of one settings file; `source` (its path) is named in every error. */
export function parseHooksConfig(raw: unknown, source: string): HooksConfig {
  // Claude Code's events orca does not fire are kept aside (as Claude Code keeps what it knows),
  // so one of them does not cost the file its other hooks.
  const notFired: NotFiredEvent[] = [];
  let rest = raw;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) {
      if (claudeCodeOnly.has(key)) notFired.push({ event: key, source });
      else kept[key] = value;
    }
    rest = kept;
  }
  const parsed = z.object({ hooks: HooksSettingSchema }).safeParse({ hooks: rest });
  if (!parsed.success) throw new HooksConfigError(describeZodError(parsed.error, source));
  const byEvent: Partial<Record<HookEventName, HookGroup[]>> = {};
  for (const event of HOOK_EVENTS) {
    const groups = parsed.data.hooks[event];
    if (!groups || groups.length === 0) continue;
    byEvent[event] = groups.map((group) => ({
      matcher: group.matcher,
      matches: compileMatcher(group.matcher),
      hooks: group.hooks,
      source,
    }));
  }
  return notFired.length > 0 ? { byEvent, notFired } : { byEvent };
}

/** Several sources' hooks together: every group of every source runs, as in Claude Code. */
export function mergeHooksConfigs(configs: HooksConfig[]): HooksConfig {
  const byEvent: Partial<Record<HookEventName, HookGroup[]>> = {};
  const notFired = configs.flatMap((config) => config.notFired ?? []);
  for (const config of configs) {
    for (const event of HOOK_EVENTS) {
      const groups = config.byEvent[event];
      if (groups && groups.length > 0) byEvent[event] = [...(byEvent[event] ?? []), ...groups];
    }
  }
  return notFired.length > 0 ? { byEvent, notFired } : { byEvent };
}

/** How a hook is named in events and messages: its command line or URL. */
export function hookLabel(hook: HookHandler): string {
  if (hook.type === 'http') return hook.url;
  return hook.args && hook.args.length > 0 ? [hook.command, ...hook.args].join(' ') : hook.command;
}
