/**
 * Keeps credentials out of everything orca writes down (transcripts, the run's event stream):
 * known token shapes, and the exact values of the secret environment variables it knows of.
 */
const TOKEN_SHAPES: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /\b(?:ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /(authorization\s*[:=]\s*["']?(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /((?:api[_-]?key|secret|token|password)["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi,
];

/** Environment variables whose values are secrets wherever they appear. */
export const SECRET_ENV =
  /(^|_)(API_KEY|AUTH_TOKEN|ACCESS_TOKEN|SECRET|PASSWORD|PRIVATE_KEY)$|^ANTHROPIC_API_KEY$|^GITHUB_TOKEN$|^ORCA_BOARD_TOKEN$/;

/**
 * Variables holding a URL whose password is a secret (orca's Redis, `redis://:pw@host`): kept for
 * the agent's tools, which may talk to the same service, with the password taken out.
 */
export const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]+@/i;

export const REDACTED = '[redacted]';

export class SecretRedactor {
  private readonly values: string[];

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.values = Object.entries(env)
      .flatMap(([name, value]) => {
        if (typeof value !== 'string') return [];
        if (SECRET_ENV.test(name)) return [value];
        const password = URL_WITH_PASSWORD.test(value) ? urlPassword(value) : undefined;
        return password ? [password] : [];
      })
      .filter((value) => value.length >= 8)
      .sort((a, b) => b.length - a.length);
  }

  redactText(text: string): string {
    let out = text;
    for (const value of this.values) out = out.split(value).join(REDACTED);
    for (const shape of TOKEN_SHAPES) {
      out = out.replace(shape, (match, prefix: unknown) =>
        typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
      );
    }
    return out;
  }

  /** A deep copy with every string redacted. */
  redact<T>(value: T): T {
    if (typeof value === 'string') return this.redactText(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.redact(item)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.redact(item);
      return out as T;
    }
    return value;
  }
}

function urlPassword(value: string): string | undefined {
  try {
    return decodeURIComponent(new URL(value).password) || undefined;
  } catch {
    return /:\/\/[^/@\s]*:([^/@\s]+)@/.exec(value)?.[1];
  }
}
