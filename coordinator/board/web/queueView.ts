import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { AgentQueue } from '../../../shared/infra/queue/agentQueue.js';

export const QUEUES_PATH = '/queues';

/**
 * bull-board's raw view of the agent queue, mounted under /queues. Read-only: whether a failed
 * job is retried is the coordinator's decision, not a button's.
 */
export function mountQueueView(app: Hono, queue: AgentQueue): void {
  const serverAdapter = new HonoAdapter(serveStatic).setBasePath(QUEUES_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queue.queue, { readOnlyMode: true, description: 'agent jobs: one per task attempt' })],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'orca queue' } },
  });
  app.route(QUEUES_PATH, serverAdapter.registerPlugin());
}
