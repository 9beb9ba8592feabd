/**
 * V8 flags for a worker process. A worker spends its life waiting on the model, git and shells,
 * and runs several agents at once: memory matters more than peak JIT speed. Measured on 4 agents
 * over a 20,000-file repository (npm run bench, worker_rss_mb), these take the idle process from
 * about 120 MB to about 90 MB: a smaller young generation and a heap tuned for size.
 */
export const WORKER_NODE_FLAGS = ['--optimize-for-size', '--max-semi-space-size=2'];
