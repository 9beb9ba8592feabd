import { z } from 'zod';

/**
 * What goes on a run's Redis stream: an agent's event tagged with its task, or a run-level event
 * from the coordinator. The board reads only this stream (and the hashes written from it).
 */
export const RunStreamEntrySchema = z.object({
  run_id: z.string(),
  task_id: z.string().optional(),
  source: z.enum(['agent', 'run']),
  event: z.record(z.string(), z.unknown()).and(z.object({ type: z.string(), at: z.number() })),
});
export type RunStreamEntry = z.infer<typeof RunStreamEntrySchema>;
