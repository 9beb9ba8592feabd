import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../shared/policy/permissions/shell/bashAnalysis.js';
import type { ShellCommand } from '../../shared/policy/permissions/shell/shellTypes.js';
import type { WriteTarget } from '../../shared/policy/permissions/shell/writeCollector.js';
import { commandWrites } from '../../shared/policy/permissions/shell/writeTargets.js';

function commands(command: string): ShellCommand[] {
  const analysis = analyzeBash(command);
  if (!analysis.ok) throw new Error(`expected ${command} to parse: ${analysis.reason}`);
  return analysis.commands;
}

/** Each path as `folder/path` (`?/path` when the folder is unknown), `!` marking an entry that is not followed. */
function shown(targets: WriteTarget[]): string[] {
  return targets.flatMap((target) =>
    (target.cwd ?? ['?']).map(
      (cwd) =>
        `${target.entry ? '!' : ''}${path.posix.isAbsolute(target.path.value) ? target.path.value : path.posix.join(cwd, target.path.value)}`,
    ),
  );
}

/** What the last command of `command` writes. */
function writesOf(command: string) {
  return commandWrites(commands(command).at(-1)!);
}

describe('the paths a command writes, read from its arguments as the command reads them', () => {
  it.each([
    ['cp a b', ['b', 'b/a']],
    ['cp -t dir a b', ['dir', 'dir/a', 'dir/b']],
    ['cp --targ=dir a', ['dir', 'dir/a']],
    ['cp -rtdir src', ['dir', 'dir/src']],
    ['cp a b -t dir', ['dir', 'dir/a', 'dir/b']],
    ['cp --parents src/a.ts out', ['out', 'out/src/a.ts']],
    ['cp -S .orig --backup a b', ['b', 'b/a']],
    ['cp -- -t b', ['b', 'b/-t']],
    ['mv a b', ['b', 'b/a', '!a']],
    ['install -m 644 -D a dest/a', ['dest/a', 'dest/a/a']],
    ['install -d x y', ['x', 'y']],
    ['ln -s target name', ['name', 'name/target']],
    ['ln target', ['.', 'target']],
    ['touch -d "2 days ago" f', ['f']],
    ['touch -r ref -c f g', ['f', 'g']],
    ['touch -h link', ['!link']],
    ['touch --date=$(date) f', ['f']],
    ['cp --t=dir a', ['dir', 'dir/a']],
    ['mkdir -m 755 -p a/b', ['a/b']],
    ['rm -rf -- -x', ['!-x']],
    ['rmdir -p a/b', ['!a/b']],
    ['tee -a log other', ['log', 'other']],
    ['truncate -s 0 f', ['f']],
    ['dd if=a of=b bs=1M', ['b']],
    ['sed -n -e p f', []],
    ['sed -i s/a/b/ f', ['f']],
    ['sed -ie s/a/b/ f g', ['f', 'g']],
    ['sed --in-place=.bak -f script.sed f', ['f']],
    ['sed -E -i -e s/a/b/ -e s/c/d/ f', ['f']],
    ['perl -pi -e 1 f', ['f']],
    ['perl -pie 1 f', ['f']],
    ['perl -i.bak -0777 -pe 1 f g', ['f', 'g']],
    ['perl -e 1 f', []],
    ['perl script.pl f', []],
    ['chmod -R u+x d', ['d']],
    ['chmod -x f', ['f']],
    ['chmod --reference=r f', ['f']],
    ['chown -h user:group f', ['f']],
    ['chgrp -R users d', ['d']],
    ['shred -u f', ['f']],
    ['rsync -a src/ dst', ['dst', 'dst/src']],
    ['rsync -a --backup-dir=old src dst', ['dst', 'dst/src', 'old', 'dst/old']],
    ['rsync -a src host:dst', []],
    ['rsync --remove-source-files -a src dst', ['!src', 'dst', 'dst/src']],
    ['tar -xf a.tar', ['.']],
    ['tar xzf a.tgz -C out', ['out']],
    ['tar -x -C a -C b -f t.tar', ['a', 'a/b']],
    ['tar -cf out.tar src', ['out.tar']],
    ['tar cvf out.tar src', ['out.tar']],
    ['tar -tf a.tar', []],
    ['unzip a.zip', ['.']],
    ['unzip a.zip -x junk -d out', ['out']],
    ['unzip -l a.zip', []],
    ['git commit -m x', []],
    ['git -C a -C b commit', ['a', 'a/b']],
    ['git -C a status', []],
    ['git --git-dir=g --work-tree=w add .', ['g', 'w']],
    ['GIT_DIR=g git commit', ['g']],
    ['git clone https://example.com/r.git dest', ['dest']],
    ['git clone --depth 1 git@github.com:o/r.git', ['1']],
    ['git init repo', ['repo']],
    ['git worktree add ../wt', ['../wt']],
    ['make -C sub test', ['sub']],
    ['make -sCsub', ['sub']],
    ['make --directory=sub', ['sub']],
    ['make -j4 test', []],
    ['find d -delete', ['!d']],
    ['find -name x -fprint out.txt', ['out.txt']],
    ['find src -name "*.o" -exec rm {} +', ['!src']],
    ['find src -exec cp {} {}.bak \\;', ['src.bak']],
    ['env -C sub touch x', ['sub/x']],
    ['cd sub && touch x', ['x', 'sub/x']],
    ['xargs -t ls', []],
    ['echo x', []],
  ])('%s writes %j', (command, expected) => {
    const writes = writesOf(command);
    expect(writes.unknown).toBeUndefined();
    expect(shown(writes.targets)).toEqual(expected);
  });

  it('reports hard-linked sources and where symbolic links lead', () => {
    expect(shown(writesOf('ln /x/file here').hardLinked)).toEqual(['/x/file']);
    expect(shown(writesOf('cp -l /x/file here').hardLinked)).toEqual(['/x/file']);
    // Read from inside sub/name if it is a folder, else from sub.
    expect(shown(writesOf('ln -s ../up sub/name').linksTo)).toEqual(['sub/up', 'up']);
    expect(shown(writesOf('ln -sr up sub/name').linksTo)).toEqual(['up']);
  });
});

describe('what cannot be told from the words is reported, not guessed', () => {
  it.each([
    ['cp x $D', /\$D could expand to something starting with -/],
    ['cp -- x "$D"', /"\$D" is only known when it runs/],
    ['cp --frobnicate a b', /option we do not know \(--frobnicate\)/],
    ['cp --s=x a b', /option we do not know \(--s\)/],
    ['cp -Q a b', /option we do not know \(-Q in -Q\)/],
    ['cp * out/', /\* could expand to something starting with -/],
    ['touch --$(echo date)=x f', /its option --\$\(echo date\)=x is only known when it runs/],
    ['touch src/{a,b}.ts', /expands the braces/],
    ['touch ~/x', /only known when it runs/],
    ['touch dir=~/x', /holds a ~/],
    ['echo f | xargs rm', /xargs adds operands/],
    ['xargs mv -t dir', /xargs adds operands/],
    ['tar -xPf a.tar', /absolute paths/],
    ['tar -x --to-command=sh -f a.tar', /runs a command/],
    ['chown -R -L u d', /follows symbolic links/],
    ["sed -i'../x/*' s/a/b/ f", /backup suffix/],
    ['git -c core.hooksPath=/x commit', /run a program/],
    ['find -L . -delete', /follows symbolic links/],
    ['find . -exec rm ../{} \\;', /inside a longer path/],
    ['unzip -: a.zip', /climb out/],
    ['rsync -K a b', /keep-dirlinks/],
    ['dd $ARGS', /may name the file it writes/],
  ])('%s', (command, why) => {
    expect(writesOf(command).unknown).toMatch(why);
  });

  it('leaves commands it cannot identify to the rule they already need', () => {
    expect(writesOf('$TOOL a b')).toEqual({ targets: [], hardLinked: [], linksTo: [] });
  });
});
