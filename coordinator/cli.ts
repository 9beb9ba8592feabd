#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { publishAbort } from '../shared/queue/runAbort.js';
import { Keys } from '../shared/queue/keys.js';
import { connectRedis, pingRedis, redisUrl } from '../shared/queue/redisConnection.js';
import { isSlug } from '../shared/git/slug.js';
import { runWorkerProcess } from '../workers/workerProcess.js';
import { agentCommand } from './agentCommand.js';
import { UserError } from './repoCheck.js';

/** `orca`: the command line (../shared/INTERFACES.md). Exit codes: 0 pass, 1 fail, 2 bad input, 130 aborted. */
const program = new Command('orca')
  .description('A team of coding agents on one repository: each in its own git worktree, on a Redis queue.')
  .showHelpAfterError()
  .exitOverride();

program
  .command('agent')
  .description('run one agent through the queue and a worker process, no coordinator')
  .requiredOption('--role <role>', 'explore, plan, worker, verification, or a custom role from .claude/agents')
  .argument('<prompt>', 'what the agent is to do')
  .option('--repo <dir>', 'the repository', '.')
  .option('--base <ref>', 'the commit the agent starts from (default HEAD)')
  .option('--model <id>', 'model id or alias (sonnet, opus, haiku); default ORCA_MODEL')
  .option('--script <file>', 'run the Scripted model from this file instead of an LLM')
  .option('--workers <n>', 'local worker processes to start', positiveInt, 1)
  .option('--no-local-workers', 'start no workers here: workers elsewhere take the job')
  .option('--allow-dirty', 'run even though the repository has uncommitted changes', false)
  .option('--json', 'print one JSON object when the agent ends', false)
  .action(async (prompt: string, options) => {
    process.exitCode = await agentCommand({
      role: options.role,
      prompt,
      repo: options.repo,
      base: options.base,
      model: options.model,
      script: options.script,
      json: options.json,
      workers: options.workers,
      localWorkers: options.localWorkers,
      allowDirty: options.allowDirty,
    });
  });

program
  .command('worker')
  .description('a worker process: takes agent jobs from Redis until stopped (SIGINT/SIGTERM)')
  .addOption(new Option('--concurrency <n>', 'agent jobs at once').argParser(positiveInt).default(2))
  .action(async (options: { concurrency: number }) => {
    await pingRedis(redisUrl());
    await runWorkerProcess({ concurrency: options.concurrency });
  });

program
  .command('abort')
  .description('cancel a run everywhere: its agents stop, their shells are killed, worktrees are kept')
  .argument('<run>', 'the run id (printed as "orca: run <id>")')
  .action(async (run: string) => {
    if (!isSlug(run)) throw new UserError(`"${run}" is not a run id.`);
    await pingRedis(redisUrl());
    const redis = connectRedis();
    try {
      await publishAbort(redis, new Keys(), run, 'orca abort');
      process.stdout.write(`orca: abort of run ${run} published\n`);
    } finally {
      redis.disconnect();
    }
  });

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (typeof code === 'string' && code.startsWith('commander.')) process.exit(2);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`orca: ${message}\n`);
  process.exit(2);
});
