/** What the shell analysis finds in a Bash call: its words, commands and redirections. */

/** One word of a command: its value after quote removal, the text as written, and whether the shell computes it. */
export interface ShellWord {
  value: string;
  raw: string;
  /** Contains an expansion (`$x`, `$(…)`, `~`): its value is only known when the command runs. */
  dynamic: boolean;
}

/** One simple command found anywhere in a Bash call: in a list, a pipeline, a subshell, a `$(…)`, a `bash -c`. */
export interface ShellCommand {
  /** The words as written, wrappers included; env assignments and redirections left out. */
  written: ShellWord[];
  /** The command that really runs: wrappers such as `timeout 5`, `xargs` or `sudo` stripped. */
  argv: ShellWord[];
  wrappers: string[];
  /** Run through sudo. */
  elevated: boolean;
  /** Why the command that runs cannot be told (a name in a variable, a wrapper option we do not know). */
  unclear?: string;
  /** Names of the commands before it in the same pipeline (`curl` in `curl … | sh`). */
  pipedFrom: string[];
  /** The folders it may run in (after any `cd` before it, and a wrapper's `env -C`). */
  cwd: PossibleCwds;
  /** `NAME=value` words written before it (`GIT_DIR=x git …`). */
  assignments: ShellWord[];
  /** Run by `find -exec`: the `{}` in its words stands for a path under find's start paths. */
  placeholder?: FindPlaceholder;
}

/** What `{}` stands for in a command `find -exec` runs. */
export interface FindPlaceholder {
  starts: ShellWord[];
  /** Where find itself runs, which its relative start paths are relative to. */
  cwd: PossibleCwds;
  /** find follows symbolic links (`-L`), so a path under a start may lead anywhere. */
  followsLinks: boolean;
}

/**
 * Where a command may be running: folders relative to the Bash call's working directory (or
 * absolute), or undefined once a `cd` makes it impossible to tell.
 */
export type PossibleCwds = string[] | undefined;

/** A redirection that writes a file (`>`, `>>`, `>|`, `<>`, `>& file`). */
export interface ShellWrite {
  op: string;
  target: ShellWord;
  cwd: PossibleCwds;
}

export type BashAnalysis = { ok: true; commands: ShellCommand[]; writes: ShellWrite[] } | { ok: false; reason: string };
