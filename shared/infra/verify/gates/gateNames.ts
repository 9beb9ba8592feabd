import { z } from 'zod';

/**
 * Every gate's name, in the order gateList.ts holds the gates, which checks the two agree (its
 * GATE_NAMES is typed from the gates themselves). Apart from them so a job's result schema names
 * the gates without loading them (each gate's module, the evidence parsers, the `diff` package):
 * a command that only queues a job and reads its result (`orca agent`) runs none of them.
 */
export const GATE_NAME_LIST = ['zero_tests', 'stale', 'target', 'assertions', 'claims', 'required'] as const;

export const GateNameSchema = z.enum(GATE_NAME_LIST);
export type GateName = z.infer<typeof GateNameSchema>;

/** One gate's verdict, as a job result carries it and the run JSON's `gates` holds it. */
export const GateResultSchema = z.object({ name: GateNameSchema, ok: z.boolean(), reason: z.string() });
export type GateResult = z.infer<typeof GateResultSchema>;
