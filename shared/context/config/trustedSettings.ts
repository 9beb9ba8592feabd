import path from 'node:path';
import type { TrustedConfig } from '../../infra/queue/trustedConfig.js';
import { type LoadedSettings, parseSettingsSource, type SettingsScope, type SettingsSource } from '../../policy/settings/loadSettings.js';

/**
 * The settings of a session from the trusted configuration: the same three scopes as files on
 * disk (loadSettings.ts), named the same way, with rules relative to the agent's workspace root.
 * The local scope comes from the user's checkout (`config.local`), else from the base commit when
 * the repository commits one; never from the agent's tree.
 */
export function settingsFromConfig(projectRoot: string, config: TrustedConfig): LoadedSettings {
  const root = path.resolve(projectRoot);
  const project = (file: string) => config.project.find((entry) => entry.path === file)?.text;
  const local = config.local.find((entry) => entry.path === '.claude/settings.local.json')?.text ?? project('.claude/settings.local.json');
  const userFile = path.join(config.user.dir, 'settings.json');
  const texts: Record<SettingsScope, { file: string; label: string; text: string | undefined }> = {
    local: { file: path.join(root, '.claude', 'settings.local.json'), label: '.claude/settings.local.json', text: local },
    project: { file: path.join(root, '.claude', 'settings.json'), label: '.claude/settings.json', text: project('.claude/settings.json') },
    user: { file: userFile, label: userFile, text: config.user.files.find((entry) => entry.path === 'settings.json')?.text },
  };
  const sources: SettingsSource[] = [];
  for (const scope of ['local', 'project', 'user'] as const) {
    const { file, label, text } = texts[scope];
    if (text !== undefined) sources.push(parseSettingsSource(scope, file, label, text));
  }
  return { projectRoot: root, sources };
}
