import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

export const TOKEN_COOKIE = 'orca_board_token';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a bind address is this machine only. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Who may talk to the board server, checked on every request (the page, the API, SSE, bull-board):
 *
 * - With a token (required when bound beyond loopback), the request carries it as
 *   `Authorization: Bearer`, the cookie, or `?token=` (which, on a page load, is turned into an
 *   HttpOnly cookie and taken out of the address bar).
 * - Without one (loopback only), the Host header must name loopback too, so a web page whose own
 *   name resolves to 127.0.0.1 (DNS rebinding) is not served the board as its own.
 * - A request that changes something (the abort button, bull-board's actions) must come from the
 *   board's own page: a cross-site `Sec-Fetch-Site` or an `Origin` naming another host is refused.
 */
export function requestGuard(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (c, next) => {
    if (expected) {
      const url = new URL(c.req.url);
      const header = c.req.header('authorization');
      const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
      const fromQuery = url.searchParams.get('token') ?? undefined;
      const given = bearer ?? fromQuery ?? getCookie(c, TOKEN_COOKIE);
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        return c.text('orca board: a token is required (Authorization: Bearer <token>, or open the page once with ?token=<token>)\n', 401);
      }
      if (fromQuery !== undefined && bearer === undefined && c.req.method === 'GET' && c.req.header('accept')?.includes('text/html')) {
        setCookie(c, TOKEN_COOKIE, fromQuery, { httpOnly: true, sameSite: 'Strict', path: '/' });
        url.searchParams.delete('token');
        return c.redirect(`${url.pathname}${url.search}${url.hash}`, 303);
      }
    } else {
      const host = hostName(c.req.header('host') ?? '');
      if (!isLoopback(host)) {
        return c.text(`orca board: this server answers to 127.0.0.1 and localhost only, not to ${host || 'an empty Host'}\n`, 403);
      }
    }

    if (!SAFE_METHODS.has(c.req.method)) {
      const site = c.req.header('sec-fetch-site');
      const origin = c.req.header('origin');
      if ((site !== undefined && site !== 'same-origin') || (origin !== undefined && !sameHost(origin, c.req.header('host')))) {
        return c.text(`orca board: ${c.req.method} refused: the request did not come from the board's own page\n`, 403);
      }
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  return hostHeader.split(':')[0] ?? '';
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false; // `Origin: null` and other opaque origins are never the board's page.
  }
}
