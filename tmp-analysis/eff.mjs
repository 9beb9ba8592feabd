import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchEnv } from '../dist/bench/benchEnv.js';
import { CHECK_COMMAND, makeRunRepo, runScript, writerTurns } from '../dist/bench/runScript.js';
const latency = 500;
await BenchEnv.with(async (env) => {
  const ids = Array.from({ length: 32 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);
  const repo = path.join(env.dir('repo'), 'flat');
  makeRunRepo(repo);
  const script = path.join(env.dir('script'), 'flat.json');
  writeFileSync(script, JSON.stringify(runScript(ids.map((id) => ({ id, paths: [`src/${id}.txt`], turns: writerTurns(`src/${id}.txt`, 4, latency) })))));
  const cli = env.cli(['run', 'x', '--repo', repo, '--script', script, '--json', '--workers', '4', '--concurrency', '2', '--check', CHECK_COMMAND]);
  const json = await cli.json();
  const events = await env.events(json.run_id);
  const t = {};
  let t0 = Infinity;
  for (const { task_id: agentTask, source, event } of events) {
    const task = agentTask ?? event.task_id;
    if (!task || !ids.includes(task)) continue;
    t[task] ??= { usage: [], tools: [] };
    const r = t[task];
    if (source === 'run' && event.type === 'task_state' && event.status === 'queued') { r.queued = event.at; t0 = Math.min(t0, event.at); }
    if (source === 'run' && event.type === 'task_state' && event.status !== 'queued') r[event.status] ??= event.at;
    if (source === 'run' && event.type === 'task_result') r.result = event.at;
    if (source === 'run' && event.type === 'workspace') r.workspace = event.at;
    if (source === 'run' && event.type === 'merge') r.merge = event.at;
    if (source === 'agent' && event.type === 'usage') r.usage.push(event.at);
    if (source === 'agent' && (event.type === 'tool_result')) r.tools.push(event.at);
    if (source === 'agent' && event.type === 'turn_start' && !r.turn1) r.turn1 = event.at;
    if (source === 'agent' && event.type === 'end') r.end = event.at;
  }
  const rows = Object.entries(t).sort((a, b) => a[1].queued - b[1].queued);
  for (const [id, r] of rows) {
    const rel = (x) => (x === undefined ? '-' : String(x - t0));
    console.log(id, 'q', rel(r.queued), 'run', rel(r.running), 'ws', rel(r.workspace), 'turn1', rel(r.turn1), 'u1', rel(r.usage[0]), 'u4', rel(r.usage.at(-1)), 'end', rel(r.end), 'res', rel(r.result), 'merge', rel(r.merge), '| start', r.usage[0] - latency - r.queued, 'endov', r.result - r.usage.at(-1));
  }
  console.log('events kinds', [...new Set(events.map(e=>e.source+':'+e.event.type))].join(' '));
});
