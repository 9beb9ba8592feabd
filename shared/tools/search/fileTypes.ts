/**
 * The `type` names Grep accepts, with the file-name globs of ripgrep's own definitions
 * (as of ripgrep 14). The JS fallback filters with this table; the rg path passes the same globs to rg
 * (`--type-clear` + `--type-add`), so both engines agree whatever rg version is installed. Types
 * not listed here are left to rg, which knows many more; the fallback refuses them by name.
 */
const FILE_TYPES: Record<string, readonly string[]> = {
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  py: ['*.py', '*.pyi'],
  rust: ['*.rs'],
  go: ['*.go'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  cpp: ['*.[ChH]', '*.[ChH].in', '*.[ch]pp', '*.[ch]pp.in', '*.[ch]xx', '*.[ch]xx.in', '*.cc', '*.cc.in', '*.hh', '*.hh.in', '*.inl'],
  json: ['*.json', 'composer.lock', '*.sarif'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  yaml: ['*.yaml', '*.yml'],
  toml: ['*.toml', 'Cargo.lock'],
  html: ['*.ejs', '*.htm', '*.html'],
  css: ['*.css', '*.scss'],
  sh: [
    '*.bash',
    '*.bashrc',
    '*.csh',
    '*.cshrc',
    '*.ksh',
    '*.kshrc',
    '*.sh',
    '*.tcsh',
    '*.zsh',
    '.bash_login',
    '.bash_logout',
    '.bash_profile',
    '.bashrc',
    '.cshrc',
    '.kshrc',
    '.login',
    '.logout',
    '.profile',
    '.tcshrc',
    '.zlogin',
    '.zlogout',
    '.zprofile',
    '.zshenv',
    '.zshrc',
    'bash_login',
    'bash_logout',
    'bash_profile',
    'bashrc',
    'profile',
    'zlogin',
    'zlogout',
    'zprofile',
    'zshenv',
    'zshrc',
  ],
};

/** The file-name globs of a known type, or undefined for a name this table does not define. */
export function fileTypeGlobs(name: string): readonly string[] | undefined {
  return Object.hasOwn(FILE_TYPES, name) ? FILE_TYPES[name] : undefined;
}

export function knownFileTypes(): string[] {
  return Object.keys(FILE_TYPES);
}

/** The one message both engines give for a type neither knows. */
export function unknownFileTypeMessage(name: string): string {
  return (
    `Unknown file type "${name}" for Grep's type. Use one of ${knownFileTypes().join(', ')}, ` +
    `or filter by file name with glob instead (e.g. glob: "*.ext").`
  );
}
