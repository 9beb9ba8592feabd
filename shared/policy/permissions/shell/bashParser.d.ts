// Types for @ericcornelissen/bash-parser, which ships none. Only the parts the shell analysis reads (shellParser.ts).
declare module '@ericcornelissen/bash-parser' {
  namespace bashParser {
    interface Loc {
      start: { row: number; col: number; char: number };
      end: { row: number; col: number; char: number };
    }

    interface Expansion {
      type: 'CommandExpansion' | 'ParameterExpansion' | 'ArithmeticExpansion';
      /** The command inside `$(…)` or backquotes. */
      command?: string;
      /** The expression inside `$((…))`. */
      expression?: string;
      parameter?: string;
      op?: string;
      /** Character offsets inside the word's text (end inclusive). */
      loc: { start: number; end: number };
    }

    interface Node {
      type: string;
      text?: string;
      loc?: Loc;
      expansion?: Expansion[];
      name?: Node;
      prefix?: Node[];
      suffix?: Node[];
      commands?: Node[];
      left?: Node;
      right?: Node;
      op?: string | Node;
      list?: Node;
      file?: Node;
      numberIo?: Node;
      redirections?: Node[];
      clause?: Node;
      then?: Node;
      else?: Node;
      do?: Node;
      body?: Node;
      wordlist?: Node[];
      cases?: Node[];
      pattern?: Node[];
    }

    interface Options {
      mode?: 'posix' | 'bash';
      insertLOC?: boolean;
    }
  }

  function bashParser(source: string, options?: bashParser.Options): bashParser.Node;
  export = bashParser;
}
