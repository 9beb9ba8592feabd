import os from 'node:os';
import path from 'node:path';
import type { Workspace } from '../../core/files/workspace.js';
import { modeCovers, modeRank, type PermissionMode } from '../../core/tool/permissionMode.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import type { LoadedSettings } from '../settings/loadSettings.js';
import type { CallPart } from './callPart.js';
import { callParts } from './callParts.js';
import { type BrokenRule, isBroken, type PermissionRule, parseRule, RULE_BEHAVIORS, type RuleBehavior, ruleLabel } from './rule.js';
import { familyRuleName, namesItsTarget, ruleAppliesTo, ruleCovers } from './ruleMatch.js';

export interface PermissionCall {
  /** The tool called: its name, and its facts (what its rules name, its family). */
  tool: ToolFacts;
  /** The input as the tool's schema parsed it. */
  input: unknown;
  /** The level the tool declares for this input. A shell command is judged part by part from its analysis instead. */
  level: PermissionMode;
}

export interface DecisionContext {
  mode: PermissionMode;
  workspace: Workspace;
  /** What PreToolUse hooks decided, if anything. */
  hook?: { decision: 'allow' | 'deny' | 'ask'; reason?: string };
  /**
   * Allow rules given as answers before the question (`--yes-to`, an allow for the rest of the
   * run, a PermissionRequest hook's `updatedPermissions`): they answer an ask rule, a hook's ask,
   * a command or path that needs a named allow (when they name it) and a mode shortfall, as a
   * person's yes would; never a deny rule, a broken rule or a refusal.
   */
  answers?: PermissionRule[];
}

export interface PermissionDecision {
  behavior: RuleBehavior;
  /** The rule, mode, hook or check that decided: `deny:Bash(rm -rf *) in .claude/settings.json`, `mode:read-only`, … */
  by: string;
  /** Why, in words the model (or the person asked) can act on. */
  reason: string;
  /** What the call does, for a prompt: the command or the path. */
  summary: string;
}

export interface PolicyOptions {
  /** The user's home, for `~/` rules. */
  home?: string;
  /** Folders outside the workspace Bash may write (the sandbox's private /tmp). */
  writableOutside?: string[];
  /**
   * Bash runs in the sandbox, where a command can write only the worktree: a command that is not
   * read-only then needs workspace-write instead of full-access, and a write its words do not
   * show (`cp x $DEST`, a command run after `cd` elsewhere) is left to the sandbox. Without it,
   * such a command is refused.
   */
  bashSandboxed?: boolean;
}

/**
 * The permission rules of a session and how they decide a call, in Claude Code's order: a deny
 * rule refuses; then an ask rule asks; then allow rules allow, when they cover every part of the
 * call; what they leave is judged by the session's mode. Destructive commands and guarded paths
 * need an allow rule that names them, in any mode. Anything that cannot be judged (a broken
 * rule, a command the parser cannot read, a write outside the workspace) is refused.
 */
export class PermissionPolicy {
  readonly rules: PermissionRule[];
  readonly broken: BrokenRule[];
  private readonly home: string;
  private readonly writableOutside: string[];
  private readonly shellLevel: PermissionMode;
  private readonly options: PolicyOptions;

  constructor(rules: (PermissionRule | BrokenRule)[], options: PolicyOptions = {}) {
    this.options = options;
    const order = (rule: PermissionRule | BrokenRule) => RULE_BEHAVIORS.indexOf(rule.behavior);
    // Deny, then ask, then allow; within each, the order the rules were written in.
    const sorted = rules.map((rule, index) => ({ rule, index })).sort((a, b) => order(a.rule) - order(b.rule) || a.index - b.index);
    this.rules = sorted.map(({ rule }) => rule).filter((rule): rule is PermissionRule => !isBroken(rule));
    this.broken = sorted.map(({ rule }) => rule).filter(isBroken);
    this.home = options.home ?? os.homedir();
    this.writableOutside = options.writableOutside ?? [];
    this.shellLevel = options.bashSandboxed ? 'workspace-write' : 'full-access';
  }

  /** The rules of every settings source, most specific source first. */
  static fromSettings(settings: LoadedSettings, options: PolicyOptions = {}): PermissionPolicy {
    const rules: (PermissionRule | BrokenRule)[] = [];
    for (const source of settings.sources) {
      for (const behavior of RULE_BEHAVIORS) {
        for (const text of source.settings.permissions?.[behavior] ?? []) rules.push(parseRule(text, behavior, source.label));
      }
    }
    return new PermissionPolicy(rules, options);
  }

  /**
   * This policy plus allow rules from elsewhere (a loaded skill's `allowed-tools`), named by
   * `source`. They are allow rules like any other: deny and ask rules still come first.
   */
  withAllowRules(texts: readonly string[], source: string): PermissionPolicy {
    if (texts.length === 0) return this;
    return new PermissionPolicy([...this.rules, ...this.broken, ...texts.map((text) => parseRule(text, 'allow', source))], this.options);
  }

  /** Rules that could not be read, as one line each, for a notice at start-up. */
  problems(): string[] {
    return this.broken.map((rule) => {
      const effect = rule.behavior === 'allow' ? 'it allows nothing until it is fixed' : 'calls it might cover are refused';
      return `${ruleLabel(rule)} cannot be read (${rule.problem}); ${effect}`;
    });
  }

  /**
   * The decision on one call, in this order: a hook's or the call's own refusal; deny rules, then
   * ask rules (a rule that cannot be read refuses what it might cover); a hook's ask; a part that
   * needs an allow rule naming it; then allow rules and answers given in advance, and the mode.
   */
  decide(call: PermissionCall, context: DecisionContext): PermissionDecision {
    const scope = this.scopeOf(call, context);
    const early = refusedAtOnce(scope) ?? this.byDenyAndAskRules(scope) ?? askedByHook(scope) ?? this.byNamedAllows(scope);
    if (early) return early;
    const { allowed, uncovered } = this.byAllowRules(scope);
    return allowed ?? byMode(scope, uncovered);
  }

  /** What every step of a decision reads: the call's parts, and the answers given in advance that covered any (kept for the reason). */
  private scopeOf(call: PermissionCall, context: DecisionContext): DecisionScope {
    const facts = callParts(call.tool, call.input, call.level, {
      workspace: context.workspace,
      writableOutside: this.writableOutside,
      shellLevel: this.shellLevel,
      sandboxed: this.options.bashSandboxed === true,
    });
    const anchors = { root: context.workspace.root, home: this.home };
    const answers = context.answers ?? [];
    const answeredBy = new Set<string>();
    /** Whether an answer given in advance covers the part (naming it, when `named`); the answers that did are kept for the decision. */
    const answered = (part: CallPart, named = false): boolean => {
      const rule = answers.find(
        (candidate) =>
          ruleAppliesTo(candidate.tool, part.tool) &&
          (!named || namesItsTarget(candidate)) &&
          ruleCovers(candidate, part.subject, anchors) === true,
      );
      if (rule) answeredBy.add(answerLabel(rule));
      return rule !== undefined;
    };
    const decision = (behavior: RuleBehavior, by: string, reason: string): PermissionDecision => ({
      behavior,
      by,
      reason,
      summary: facts.summary,
    });
    return { call, context, facts, anchors, answered, answeredBy, decision };
  }

  /** Deny rules first, then ask rules: the first that covers a part of the call (one that cannot be read covers what it might). */
  private byDenyAndAskRules(scope: DecisionScope): PermissionDecision | undefined {
    const { facts, anchors, answered, decision } = scope;
    const checked = [...facts.parts, ...facts.denyOnly];
    for (const behavior of ['deny', 'ask'] as const) {
      for (const broken of this.broken) {
        if (broken.behavior !== behavior) continue;
        const tool = broken.tool;
        if (tool === undefined || checked.some((part) => ruleAppliesTo(tool, part.tool))) {
          return decision(
            'deny',
            ruleLabel(broken),
            `the ${behavior} rule "${broken.text}" in ${broken.source} cannot be read (${broken.problem}), so calls it might cover are refused; fix the rule`,
          );
        }
      }
      for (const rule of this.rules) {
        if (rule.behavior !== behavior) continue;
        // A specifier this tool gives nothing to compare with counts as a match: unclear fails closed.
        const hits = checked.filter((part) => ruleAppliesTo(rule.tool, part.tool) && ruleCovers(rule, part.subject, anchors) !== false);
        if (hits.length === 0) continue;
        if (behavior === 'deny')
          return decision('deny', ruleLabel(rule), `the rule ${rule.text} in ${rule.source} denies \`${hits[0]!.label}\``);
        const open = hits.find((part) => !answered(part));
        if (open) return decision('ask', ruleLabel(rule), `the rule ${rule.text} in ${rule.source} asks before \`${open.label}\``);
      }
    }
    return undefined;
  }

  /** A part that needs an allow rule naming its target (a path outside the worktree, …) asks without one, or an answer naming it. */
  private byNamedAllows(scope: DecisionScope): PermissionDecision | undefined {
    const { facts, anchors, answered, decision } = scope;
    for (const part of facts.parts) {
      if (!part.needsNamedAllow) continue;
      const named = this.rules.find(
        (rule) =>
          rule.behavior === 'allow' &&
          namesItsTarget(rule) &&
          ruleAppliesTo(rule.tool, part.tool) &&
          ruleCovers(rule, part.subject, anchors) === true,
      );
      if (!named && !answered(part, true)) {
        const need = part.needsNamedAllow;
        return decision('ask', need.by, `${need.reason}; it needs an allow rule that names it, e.g. ${need.example}`);
      }
    }
    return undefined;
  }

  /** Allowed when allow rules and answers given in advance cover every part the mode does not; else the parts they left, for the mode. */
  private byAllowRules(scope: DecisionScope): { allowed?: PermissionDecision; uncovered: CallPart[] } {
    const { facts, context, anchors, answered, answeredBy, decision } = scope;
    const allowedBy = new Set<string>();
    const uncovered: CallPart[] = [];
    for (const part of facts.parts) {
      const rule = this.rules.find(
        (candidate) =>
          candidate.behavior === 'allow' &&
          ruleAppliesTo(candidate.tool, part.tool) &&
          ruleCovers(candidate, part.subject, anchors) === true,
      );
      if (rule) allowedBy.add(ruleLabel(rule));
      // An answer stands in only where the mode falls short: a part the mode covers needs none.
      else if (modeCovers(context.mode, part.level) || !answered(part)) uncovered.push(part);
    }
    if (uncovered.length > 0 || (allowedBy.size === 0 && answeredBy.size === 0)) return { uncovered };
    const by = [...answeredBy, ...allowedBy].join(', ');
    const reasons = [answeredText(answeredBy), allowedBy.size > 0 ? `allowed by ${[...allowedBy].join(', ')}` : undefined];
    return { allowed: decision('allow', by, reasons.filter(Boolean).join('; ')), uncovered };
  }

  /**
   * Allow rules that would answer calls like this one from now on (what `a`, allow for the rest of
   * the run, remembers; Claude Code's `permission_suggestions`): one per part of the call that an
   * ask rule asks about, that needs a named allow, or that the mode does not cover. A command is
   * named by its first word and subcommand (`Bash(npm publish:*)`), a path from the project root
   * (`Edit(/src/app.ts)`, by the rule name of the tool's family) so it holds in every agent's worktree.
   */
  suggest(call: PermissionCall, context: DecisionContext): string[] {
    const facts = callParts(call.tool, call.input, call.level, {
      workspace: context.workspace,
      writableOutside: this.writableOutside,
      shellLevel: this.shellLevel,
      sandboxed: this.options.bashSandboxed === true,
    });
    if (facts.refusal) return [];
    const anchors = { root: context.workspace.root, home: this.home };
    const asked = (part: CallPart) =>
      this.rules.some(
        (rule) => rule.behavior === 'ask' && ruleAppliesTo(rule.tool, part.tool) && ruleCovers(rule, part.subject, anchors) !== false,
      );
    const allowed = (part: CallPart) =>
      this.rules.some(
        (rule) => rule.behavior === 'allow' && ruleAppliesTo(rule.tool, part.tool) && ruleCovers(rule, part.subject, anchors) === true,
      );
    const rules = new Set<string>();
    for (const part of facts.parts) {
      if (asked(part) || part.needsNamedAllow || !(allowed(part) || modeCovers(context.mode, part.level)))
        rules.add(suggestedRule(part, context.workspace.root, false));
    }
    for (const part of facts.denyOnly) {
      if (!asked(part)) continue;
      // The whole command, or a path it writes, is named apart only when the rules for its parts do not cover it already.
      const covered = [...rules].some((text) => {
        const rule = parseRule(text, 'allow', 'suggestion');
        return !isBroken(rule) && ruleAppliesTo(rule.tool, part.tool) && ruleCovers(rule, part.subject, anchors) === true;
      });
      if (!covered) rules.add(suggestedRule(part, context.workspace.root, true));
    }
    return [...rules];
  }
}

/** How a decision names an answer given in advance: `answer:Bash(npm publish:*) (--yes-to)`. */
function answerLabel(rule: PermissionRule): string {
  return `answer:${rule.text} (${rule.source})`;
}

/** One allow rule that covers the part, and calls like it. `whole`: the part is a whole compound command, named exactly. */
function suggestedRule(part: CallPart, root: string, whole: boolean): string {
  const { subject } = part;
  switch (subject.kind) {
    case 'command': {
      const text = subject.texts[subject.texts.length - 1]!.trim();
      if (whole) return `${part.tool.name}(${text.replace(/\*/g, '\\*')})`;
      const [first = '', second] = text.split(/\s+/);
      const prefix = second !== undefined && /^[A-Za-z][\w.:-]*$/.test(second) ? `${first} ${second}` : first;
      return `${part.tool.name}(${prefix}:*)`;
    }
    case 'path': {
      const target = subject.paths[0]!;
      const relative = path.relative(root, target);
      const pattern =
        relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
          ? `/${relative.split(path.sep).join('/')}`
          : `/${target}`;
      return `${familyRuleName(part.tool)}(${pattern})`;
    }
    case 'value':
      return `${part.tool.name}(${subject.value})`;
    case 'none':
      return part.tool.name;
  }
}

/** What the steps of one decision share (PermissionPolicy.decide). */
interface DecisionScope {
  call: PermissionCall;
  context: DecisionContext;
  facts: ReturnType<typeof callParts>;
  anchors: { root: string; home: string };
  /** Whether an answer given in advance covers the part; each that did is added to answeredBy. */
  answered: (part: CallPart, named?: boolean) => boolean;
  answeredBy: Set<string>;
  decision: (behavior: RuleBehavior, by: string, reason: string) => PermissionDecision;
}

/** A hook's deny, or the call's own refusal (callParts: a path it may never take, …): before any rule. */
function refusedAtOnce({ context, facts, decision }: DecisionScope): PermissionDecision | undefined {
  if (context.hook?.decision === 'deny') return decision('deny', 'hook:PreToolUse', context.hook.reason ?? 'a PreToolUse hook denied it');
  if (facts.refusal) return decision('deny', facts.refusal.by, facts.refusal.reason);
  return undefined;
}

/** A hook's ask stands unless answers given in advance cover every part. */
function askedByHook({ context, facts, answered, decision }: DecisionScope): PermissionDecision | undefined {
  if (context.hook?.decision === 'ask' && !facts.parts.every((part) => answered(part)))
    return decision('ask', 'hook:PreToolUse', context.hook.reason ?? 'a PreToolUse hook asked for confirmation');
  return undefined;
}

/** `answered in advance by …`, when any answer covered a part. */
function answeredText(answeredBy: ReadonlySet<string>): string | undefined {
  return answeredBy.size > 0 ? `answered in advance by ${[...answeredBy].join(', ')}` : undefined;
}

/** The parts nothing else covered, against the session's mode: allowed, asked, or (a read-only role) refused; a hook's allow stands in for the mode. */
function byMode({ call, context, answeredBy, decision }: DecisionScope, uncovered: readonly CallPart[]): PermissionDecision {
  const needed = uncovered.reduce<PermissionMode>(
    (level, part) => (modeRank(part.level) > modeRank(level) ? part.level : level),
    'read-only',
  );
  if (modeCovers(context.mode, needed)) {
    const covers = `mode ${context.mode} covers ${needed}`;
    const answers = answeredText(answeredBy);
    if (answers) return decision('allow', `${[...answeredBy].join(', ')}, mode:${context.mode}`, `${answers}; ${covers}`);
    return decision('allow', `mode:${context.mode}`, covers);
  }
  const blocking = uncovered.find((part) => !modeCovers(context.mode, part.level));
  const what = blocking && call.tool.rule?.kind === 'command' ? ` (\`${blocking.label}\` needs ${blocking.level})` : '';
  const reason = `${call.tool.name} needs ${needed} and this session runs in ${context.mode}${what}`;
  if (context.hook?.decision === 'allow')
    return decision(
      'allow',
      'hook:PreToolUse',
      `${reason}; a PreToolUse hook allowed it${context.hook.reason ? `: ${context.hook.reason}` : ''}`,
    );
  // A read-only role's mode is its boundary, not a question: what writes is refused at once, with why.
  // Asks are for what a role may do but the project wants approved (its ask rules, its hooks).
  if (context.mode === 'read-only')
    return decision('deny', `mode:${context.mode}`, `${reason}: this role may not change anything, so the call is refused`);
  return decision('ask', `mode:${context.mode}`, reason);
}
