/**
 * The browser guard of the control listener: what keeps a web page of
 * another origin, open in the same browser, from reaching the Control API or
 * the settings page (docs/decisions/020-settings-page.md, Threat model).
 *
 * It runs before the secret check, on every request of the control listener:
 *
 *  1. Host must name this machine: `localhost`, a `*.localhost` name, an
 *     IPv4 loopback literal (127.0.0.0/8) or `[::1]`, with any port. A DNS
 *     rebinding attack reaches the listener under the attacker's own name
 *     (evil.example resolving to 127.0.0.1), and that name is in Host: it is
 *     refused here with 400 bad_request. (RFC 9112 §3.2: a Host that does not
 *     name the server is a 400.) The port is not compared: an attacker's page
 *     can only reach the listener on its real port, so the port adds nothing
 *     against rebinding, while an SSH tunnel (localhost:9429 → 8429) is a
 *     legitimate way to reach it.
 *  2. A request that says where it comes from must come from the listener's
 *     own origin: `Origin`, when present, must equal `http://` + Host
 *     (`Origin: null`, sent by sandboxed frames and some redirects, is
 *     refused too), and `Sec-Fetch-Site`, when present, must be
 *     `same-origin` or `none` (typed in the address bar). The one exception
 *     is a top-level navigation to the page itself (a link from elsewhere
 *     may open it; it holds no data). Refused with 403 forbidden.
 *
 * Non-browser clients (the conformance suite, the CLI, curl) send neither
 * Origin nor Sec-Fetch-Site and use a loopback URL, so they pass unchanged.
 */
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../kernel/errors.ts';
import { hostName, isLoopbackHostName } from '../../kernel/http/host-origin.ts';

// One definition of "a name of this machine" for every listener (kernel/http/host-origin.ts, decision 022).
export { hostName, isLoopbackHostName };

/** Builds the guard; `isPageNavigation` says which requests are top-level navigations to the page. */
export function browserGuard(isPagePath: (path: string) => boolean) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const host = req.headers.host;
    const name = host === undefined ? null : hostName(host);
    if (host === undefined || name === null || !isLoopbackHostName(name)) {
      next(new ApiError('bad_request', 'the Host header must name this machine (localhost or a loopback address)'));
      return;
    }
    const fetchSite = single(req.headers['sec-fetch-site']);
    const navigation =
      (req.method === 'GET' || req.method === 'HEAD') && single(req.headers['sec-fetch-mode']) === 'navigate' && isPagePath(req.path);
    if (navigation) {
      next();
      return;
    }
    const origin = single(req.headers.origin);
    if (origin !== undefined && origin.toLowerCase() !== `http://${host.trim().toLowerCase()}`) {
      next(new ApiError('forbidden', 'requests from another origin are refused by the control listener'));
      return;
    }
    if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
      next(new ApiError('forbidden', 'requests from another site are refused by the control listener'));
      return;
    }
    next();
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
