/**
 * What a loaded skill's `allowed-tools` pre-approves, and for how long. The Skill tool records a
 * grant when it loads a skill; the context assembler moves the turn counter at each model call;
 * the permission layer asks which rules are active.
 *
 * For the permission layer: `ctx.services.skillGrants` is a `SkillGrants` (or undefined when no
 * skill was loaded). Treat each string of `allowRules()` as an allow rule in Claude
 * Code's syntax (`Bash(git add:*)`, `Read`, `Edit(src/**)`), checked after the deny (and ask)
 * rules, exactly like an allow rule from settings: a deny rule still wins. Name the skill in the
 * decision's `by` (`skill:<name>`), from `activeGrants()`.
 *
 * "For that turn": a grant covers the rest of the turn that loaded the skill (tool calls after
 * Skill in the same answer) and the next model turn, the one that acts on the skill's
 * instructions. Loading the skill again renews it.
 */
import type { SessionServices } from '../../core/tool/tool.js';

export interface SkillGrant {
  skill: string;
  rules: string[];
  /** The model turn in which the skill was loaded. */
  fromTurn: number;
  /** The last model turn it covers. */
  untilTurn: number;
}

export class SkillGrants {
  private turn = 0;
  private readonly grants: SkillGrant[] = [];

  /** The model turn now under way (the assembler calls this before each model call). */
  beginTurn(turn: number): void {
    this.turn = turn;
  }

  get currentTurn(): number {
    return this.turn;
  }

  grant(skill: string, rules: string[]): SkillGrant {
    const grant: SkillGrant = { skill, rules: [...rules], fromTurn: this.turn, untilTurn: this.turn + 1 };
    this.grants.push(grant);
    return grant;
  }

  activeGrants(): SkillGrant[] {
    return this.grants.filter((grant) => grant.rules.length > 0 && grant.fromTurn <= this.turn && this.turn <= grant.untilTurn);
  }

  allowRules(): string[] {
    return [...new Set(this.activeGrants().flatMap((grant) => grant.rules))];
  }
}

/** The session's grants: the ones in `services`, or new ones stored there. */
export function skillGrantsIn(services: SessionServices): SkillGrants {
  services.skillGrants ??= new SkillGrants();
  return services.skillGrants;
}

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    skillGrants?: SkillGrants;
  }
}
