// tsc emits only .js: copy the text files that sit beside the code (prompts, tool descriptions,
// shipped scripts) into dist/ so compiled code finds them at the same relative path.
import { cpSync, existsSync } from 'node:fs';

const ASSET = /\.(md|txt|json|html|css)$/;
for (const dir of ['coordinator', 'workers', 'roles', 'shared', 'bench']) {
  if (!existsSync(dir)) continue;
  cpSync(dir, `dist/${dir}`, {
    recursive: true,
    filter: (src) => !src.endsWith('.ts') && (ASSET.test(src) || !/\.[a-z0-9]+$/i.test(src)),
  });
}
