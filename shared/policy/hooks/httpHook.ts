import { expandVariables } from './expandVariables.js';
import type { HookRawResult, HookRunOptions } from './hookOutput.js';
import type { HttpHook } from './hooksConfig.js';

const MAX_BODY_CHARS = 1_000_000;
const ERROR_BODY_CHARS = 300;

/**
 * Runs one http hook: POSTs the input JSON to its URL and reads a 2xx response's body as a
 * command hook's stdout (exit 0). Anything else (a non-2xx status, no connection, a timeout) is a
 * non-blocking error, as in Claude Code. Header values may name environment variables, but only
 * those listed in `allowedEnvVars` are expanded; any other reference becomes empty, so a settings
 * file cannot send a secret it was not allowed to.
 */
export async function runHttpHook(hook: HttpHook, inputJson: string, options: HookRunOptions): Promise<HookRawResult> {
  const allowed = new Set(hook.allowedEnvVars ?? []);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(hook.headers ?? {})) headers[name] = expandVariables(value, options.env, allowed);
  headers['content-type'] = 'application/json';

  const timeout = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  let body: string;
  try {
    response = await fetch(hook.url, {
      method: 'POST',
      headers,
      body: inputJson,
      signal: AbortSignal.any([options.signal, timeout]),
      redirect: 'error',
    });
    body = await response.text();
  } catch (error) {
    const empty = { stdout: '', stderr: '' };
    if (timeout.aborted) return { kind: 'timeout', timeoutMs: options.timeoutMs, ...empty };
    if (options.signal.aborted)
      return { kind: 'failed', message: 'the request was cancelled: the session was aborted', exitCode: null, ...empty };
    return { kind: 'failed', message: `POST ${hook.url} failed: ${describeFetchError(error)}`, exitCode: null, ...empty };
  }
  if (body.length > MAX_BODY_CHARS) body = `${body.slice(0, MAX_BODY_CHARS)}\n[body cut at ${MAX_BODY_CHARS} characters]`;
  if (response.status < 200 || response.status > 299) {
    const answer = body.trim();
    return {
      kind: 'failed',
      message: `POST ${hook.url} answered ${response.status} ${response.statusText}`.trim() + (answer ? `: ${excerpt(answer)}` : ''),
      exitCode: null,
      stdout: '',
      stderr: '',
    };
  }
  return { kind: 'exited', exitCode: 0, stdout: body, stderr: '' };
}

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the useful part (ECONNREFUSED …) in `cause`.
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

function excerpt(text: string): string {
  return text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}…` : text;
}
