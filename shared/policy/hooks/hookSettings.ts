import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { loadSettings, type SettingsSource } from '../settings/loadSettings.js';
import { type HooksConfig, HooksConfigError, mergeHooksConfigs, NO_HOOKS, parseHooksConfig } from './hooksConfig.js';

const HookKeysSchema = z.looseObject({
  hooks: z.unknown().optional(),
  disableAllHooks: z.boolean().optional(),
});

/**
 * The hooks of every settings source, merged: the user's, the project's and the local file's
 * hooks all run, as in Claude Code (listed in that order). `disableAllHooks: true` in any of them
 * turns every hook off. Errors name the file and the path in it.
 */
export function hooksFromSettings(sources: readonly SettingsSource[]): HooksConfig {
  const configs: HooksConfig[] = [];
  let disabled = false;
  // The loader lists the most specific file first; hooks are listed from the most general.
  for (const source of [...sources].reverse()) {
    const parsed = HookKeysSchema.safeParse(source.raw);
    if (!parsed.success) throw new HooksConfigError(describeZodError(parsed.error, source.label));
    if (parsed.data.disableAllHooks === true) disabled = true;
    // Checked even when disabled, so a broken file is found now and not when hooks come back on.
    if (parsed.data.hooks !== undefined) configs.push(parseHooksConfig(parsed.data.hooks, source.label));
  }
  return disabled ? NO_HOOKS : mergeHooksConfigs(configs);
}

/** The hooks a session in `projectRoot` runs, read from its settings files. */
export function loadHooks(projectRoot: string, options: { userClaudeDir?: string } = {}): HooksConfig {
  return hooksFromSettings(loadSettings({ projectRoot, userClaudeDir: options.userClaudeDir }).sources);
}
