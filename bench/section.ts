import type { makeLargeRepo } from './largeRepo.js';

/** The generated repository the large sections share. */
export type LargeRepo = ReturnType<typeof makeLargeRepo>;

/** One figure of a run: its value beside the reference measured in the same run, and its target where it has one. */
export interface Figure {
  key: string;
  value: number;
  reference?: { what: string; value: number };
  target?: string;
  met?: boolean;
  note: string;
}

/** What a section is given: the run's options, the 20,000-file repository when it asked for one, and a timer that says each step. */
export interface SectionContext {
  quick: boolean;
  /** The generated 20,000-file repository, for sections with `usesLargeRepo`. */
  large?: LargeRepo;
  /** The folder it was made in, for what a section makes beside it. */
  largeRoot?: string;
  /** Runs `fn`, saying its label as it starts and its duration as it ends. */
  timed<T>(label: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * One section of `npm run bench` (`--only NAME`): it runs its benchmark and turns the result into
 * figures, each beside its reference, and the details written to bench/results.json.
 */
export interface BenchSection {
  name: string;
  /** Whether it runs on the generated 20,000-file repository (made once for all the sections that do). */
  usesLargeRepo?: boolean;
  run(context: SectionContext): Promise<{ figures: Figure[]; details: Record<string, unknown> }>;
}
