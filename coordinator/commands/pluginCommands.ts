import { loadPlugins } from '../../shared/policy/plugins/pluginSet.js';
import { loadSettings } from '../../shared/policy/settings/loadSettings.js';

/** The `commands/` folders of the run's plugins: those given with `--plugin-dir` and those the repository's settings enable. */
export function pluginCommandFolders(repo: string, pluginDirs: readonly string[]): Array<{ plugin: string; dir: string }> {
  const { plugins } = loadPlugins({ dirs: pluginDirs, settings: loadSettings({ projectRoot: repo }).sources, projectRoot: repo });
  return plugins.flatMap((plugin) => plugin.commandDirs.map((dir) => ({ plugin: plugin.name, dir })));
}
