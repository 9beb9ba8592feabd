import { hasOption, type OptionArity, type OptionSpec, valuesOf } from './commandOptions.js';
import { findLayout } from './findCommand.js';
import { isReadOnlyCommand } from './readOnlyCommands.js';
import type { PossibleCwds, ShellWord } from './shellTypes.js';
import { mayBecomeOption } from './wordShape.js';
import type { WriteReader } from './writeCollector.js';

const HERE: ShellWord = { value: '.', raw: '.', dynamic: false };

function longs(names: string, arity: OptionArity): Record<string, OptionArity> {
  return Object.fromEntries(names.split(' ').map((name) => [name, arity]));
}

const TAR_VALUED = 'bCfFgHIKLNTVX';

const TAR: OptionSpec = {
  flags: 'AcdrtuxzjJZavkmOpPsSUWhilMBGnRwo',
  valued: TAR_VALUED,
  redirecting: true,
  long: {
    ...longs(
      'extract get create append update catenate concatenate delete list diff compare test-label gzip gunzip ungzip bzip2 xz lzip lzma lzop zstd compress ' +
        'uncompress auto-compress no-auto-compress verbose exclude-vcs exclude-vcs-ignores exclude-backups exclude-caches exclude-caches-all exclude-caches-under ' +
        'no-same-owner same-owner no-same-permissions same-permissions preserve-permissions preserve-order same-order preserve keep-old-files skip-old-files ' +
        'keep-newer-files overwrite overwrite-dir no-overwrite-dir one-file-system numeric-owner wildcards no-wildcards wildcards-match-slash ' +
        'no-wildcards-match-slash anchored no-anchored ignore-case no-ignore-case null no-null to-stdout remove-files dereference hard-dereference recursion ' +
        'no-recursion ignore-failed-read touch unlink-first recursive-unlink show-transformed-names show-stored-names acls no-acls xattrs no-xattrs selinux ' +
        'no-selinux absolute-names ignore-zeros check-links delay-directory-restore no-delay-directory-restore keep-directory-symlink full-time utc verify ' +
        'interactive confirmation multi-volume sparse seek no-seek read-full-records restrict posix show-defaults show-omitted-dirs block-number force-local ' +
        'unquote no-unquote verbatim-files-from no-verbatim-files-from clamp-mtime check-device no-check-device incremental ignore-command-error ' +
        'no-ignore-command-error old-archive portability help usage version',
      'none',
    ),
    ...longs(
      'directory file exclude exclude-from files-from strip-components transform xform owner group mode mtime sort use-compress-program warning ' +
        'listed-incremental blocking-factor format label newer newer-mtime after-date record-size tape-length info-script new-volume-script rsh-command ' +
        'suffix index-file owner-map group-map exclude-tag exclude-tag-all exclude-tag-under checkpoint-action volno-file xattrs-include xattrs-exclude level ' +
        'hole-detection quoting-style quote-chars no-quote-chars pax-option starting-file sparse-version exclude-ignore exclude-ignore-recursive to-command',
      'required',
    ),
    ...longs('occurrence backup checkpoint atime-preserve one-top-level totals', 'optional'),
  },
};

const GIT_GLOBALS: OptionSpec = {
  flags: 'pPhv',
  valued: 'Cc',
  stopAtOperand: true,
  redirecting: true,
  long: {
    ...longs(
      'paginate no-pager no-replace-objects bare literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-optional-locks no-advice help version html-path man-path info-path',
      'none',
    ),
    ...longs('git-dir work-tree namespace config-env list-cmds super-prefix attr-source', 'required'),
    ...longs('exec-path', 'optional'),
  },
};

/** git config that names a program to run, or a folder git then writes: beyond what the words say. */
const GIT_CONFIG_RUNS =
  /^(core\.(fsmonitor|pager|editor|sshcommand|askpass|hookspath|gitproxy|worktree)|alias\.|sequence\.editor|diff\.external|filter\.|credential\.|include\.|includeif\.|gpg\.|.*\.(command|cmd|textconv|program)=)/i;

/**
 * Commands that write into a folder they are told: `tar -x` and `unzip` (their `-C`/`-d`
 * folder, else the current one), `tar -c` (its archive), git with `-C`, `--git-dir`,
 * `--work-tree` (or GIT_DIR=…) when what it runs is not read-only, and the folder of `git clone`,
 * `git init`, `git worktree add`; `make -C DIR`; `find … -delete` (its start paths) and `-fprint`.
 */
export const FOLDER_COMMANDS: Record<string, WriteReader> = {
  tar: (args, out) => {
    const read = out.read(traditionalTar(args), TAR);
    if (!read) return;
    const options = read.options;
    // Each -C is relative to the one before it.
    let at: PossibleCwds = out.command.cwd;
    const folders: PossibleCwds[] = [];
    for (const option of options) {
      if (option.name !== '-C' && option.name !== '--directory') continue;
      at = out.foldersIn(option.value!, at);
      folders.push(at);
    }
    if (folders.length === 0) folders.push(at);
    if (hasOption(options, '-x', '--extract', '--get')) {
      if (hasOption(options, '-P', '--absolute-names'))
        return out.fail('tar -P extracts members with absolute paths and .. as they are, wherever they lead');
      if (hasOption(options, '--to-command')) return out.fail('tar --to-command runs a command for each member, which may write anywhere');
      for (const cwd of folders) out.write(HERE, { cwd });
      for (const top of valuesOf(options, '--one-top-level')) out.write(top, { cwd: at });
    }
    if (hasOption(options, '-c', '-r', '-u', '-A', '--create', '--append', '--update', '--catenate', '--concatenate', '--delete')) {
      for (const file of valuesOf(options, '-f', '--file')) if (file.value !== '-') out.write(file);
    }
    for (const file of valuesOf(options, '-g', '--listed-incremental', '--index-file', '--volno-file')) out.write(file);
    if (hasOption(options, '--remove-files')) {
      out.operandsFromInput();
      for (const cwd of folders) for (const member of read.operands) out.write(member, { entry: true, cwd });
    }
  },
  unzip: (args, out) => {
    let folder: ShellWord | undefined;
    let extracts = true;
    for (let index = 0; index < args.length; index += 1) {
      const word = args[index]!;
      if (mayBecomeOption(word)) return out.fail(`${word.raw} could expand into an option, such as -d DIR`);
      if (!word.value.startsWith('-') || word.value === '-') continue;
      const letters = word.value.slice(1);
      if (letters.includes(':')) return out.fail('unzip -: lets archive members climb out with ../, wherever that leads');
      if (/^[ZlptvczT]/.test(letters)) extracts = false;
      const valued = [...letters].findIndex((letter) => 'dPOI'.includes(letter));
      if (valued === -1) continue;
      const rest = letters.slice(valued + 1);
      const value = rest !== '' ? { value: rest, raw: rest, dynamic: word.dynamic } : args[++index];
      if (letters[valued] === 'd' && value) folder = value;
    }
    if (extracts) out.write(folder ?? HERE);
  },
  git: (args, out) => {
    if (isReadOnlyCommand(out.command.argv)) return;
    const read = out.read(args, GIT_GLOBALS);
    if (!read) return;
    let at: PossibleCwds = out.command.cwd;
    for (const option of read.options) {
      const value = option.value;
      if (!value) continue;
      if (option.name === '-C') {
        at = out.foldersIn(value, at);
        out.write(HERE, { cwd: at, unguarded: true });
      } else if (option.name === '--git-dir' || option.name === '--work-tree') {
        out.write(value, { cwd: at, unguarded: true });
      } else if ((option.name === '-c' || option.name === '--config-env') && GIT_CONFIG_RUNS.test(value.value)) {
        return out.fail(`git ${option.name} ${value.raw} makes git run a program or write a folder the command does not name`);
      }
    }
    const start = out.command.written.indexOf(out.command.argv[0]!);
    for (const assignment of [...out.command.assignments, ...out.command.written.slice(0, Math.max(start, 0))]) {
      const match = /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|COMMON_DIR)=/.exec(assignment.value);
      if (match)
        out.write(
          { value: assignment.value.slice(match[0].length), raw: assignment.raw.slice(match[0].length), dynamic: assignment.dynamic },
          { unguarded: true },
        );
    }
    const [sub, ...rest] = read.operands;
    const places =
      sub?.value === 'clone' || sub?.value === 'init' ? rest : sub?.value === 'worktree' && rest[0]?.value === 'add' ? rest.slice(1) : [];
    // Every word that could name the new folder, option values included: a source path outside is refused too.
    for (const word of places) {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word.value) || /^[^/]+@[^/:]+:/.test(word.value)) continue;
      const equals = word.value.indexOf('=');
      if (word.value.startsWith('-') && equals === -1) continue;
      const value = word.value.startsWith('-') ? word.value.slice(equals + 1) : word.value;
      out.write({ value, raw: value, dynamic: word.dynamic }, { cwd: at, unguarded: true });
    }
  },
  make: (args, out) => {
    for (let index = 0; index < args.length; index += 1) {
      const word = args[index]!;
      if (word.value === '--') break;
      if (mayBecomeOption(word)) return out.fail(`${word.raw} could expand into -C DIR, which makes make run elsewhere`);
      const long = /^--(di[a-z]*)(=(.*))?$/.exec(word.value);
      if (long && 'directory'.startsWith(long[1]!)) {
        const value = long[2] !== undefined ? { value: long[3]!, raw: long[3]!, dynamic: word.dynamic } : args[++index];
        if (value) out.write(value);
        continue;
      }
      const short = /^-[^-]*?C(.*)$/.exec(word.value);
      if (!short) continue;
      const value = short[1] !== '' ? { value: short[1]!, raw: short[1]!, dynamic: word.dynamic } : args[++index];
      if (value) out.write(value);
    }
  },
  find: (args, out) => {
    const layout = findLayout(args);
    const values = args.map((arg) => arg.value);
    if (values.includes('-delete')) {
      if (layout.followsLinks) return out.fail('find -L … -delete follows symbolic links, so what it deletes may lie anywhere');
      for (const start of layout.starts) out.write(start, { entry: true });
    }
    values.forEach((value, index) => {
      const file = args[index + 1];
      if (['-fprint', '-fprint0', '-fprintf', '-fls'].includes(value) && file) out.write(file);
    });
  },
};

/** `tar xzf a.tgz` as `tar -x -z -f a.tgz`: the first word's letters are options, and those that take a value take the next words in turn. */
function traditionalTar(args: ShellWord[]): ShellWord[] {
  const first = args[0];
  if (!first || first.dynamic || !/^[A-Za-z]+$/.test(first.value)) return args;
  const dashed: ShellWord[] = [];
  let next = 1;
  for (const letter of first.value) {
    dashed.push({ value: `-${letter}`, raw: `-${letter}`, dynamic: false });
    if (TAR_VALUED.includes(letter) && next < args.length) dashed.push(args[next++]!);
  }
  return [...dashed, ...args.slice(next)];
}
