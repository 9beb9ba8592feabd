import { z } from 'zod';

/**
 * The parts of a Claude Code settings file (`.claude/settings.json`, `.claude/settings.local.json`,
 * `~/.claude/settings.json`) that orca's permissions read. Every other key is kept as it is:
 * the files are shared with Claude Code, and `hooks` is read (and checked) by the hooks layer from
 * each source's raw JSON.
 */
const RuleList = z.array(z.string());

export const PermissionsSettingsSchema = z.looseObject({
  allow: RuleList.optional(),
  ask: RuleList.optional(),
  deny: RuleList.optional(),
});

export const SandboxSettingsSchema = z.looseObject({
  network: z
    .looseObject({
      allowedDomains: z.array(z.string()).optional(),
      allowUnixSockets: z.array(z.string()).optional(),
    })
    .optional(),
});

export const SettingsFileSchema = z.looseObject({
  permissions: PermissionsSettingsSchema.optional(),
  sandbox: SandboxSettingsSchema.optional(),
});

export type SettingsFile = z.infer<typeof SettingsFileSchema>;
