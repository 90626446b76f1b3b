/**
 * A delivery relay for mutants that break the webhook retry schedule. The
 * deliveries go from the target straight to the suite's receiver, past the
 * API proxy; so such a mutant rewrites the webhook URL of a registration to
 * this relay (allowlisting the relay through the Control API, as an operator
 * would), answers every attempt with 500 at once, and hands the attempts on
 * to the real destination re-timed or dropped: the receiver then sees the
 * schedule the mutant stands for.
 */
import { localServer } from '../harness/local-server.ts';
import type { LocalServer } from '../harness/local-server.ts';
import type { MutantTools, ProxyRequest, ProxyResponse } from './proxy.ts';
import { jsonOf, withJson } from './proxy.ts';

/** Attempt k (0-based) of a delivery arrived `atMs` after its first: when to hand it on (ms after the first), or null to drop it. */
export type Retime = (k: number, atMs: number) => number | null;

export interface Relay {
  /** http://127.0.0.1:port */
  base: string;
  hostPort: string;
  /** Makes the target deliver through the relay: POST /v1/webhooks with the url rewritten. */
  request(req: ProxyRequest, tools: MutantTools): Promise<ProxyRequest>;
  /** Shows the original URL again in the target's answers. */
  response(req: ProxyRequest, res: ProxyResponse): ProxyResponse;
}

export function deliveryRelay(retime: Retime): Relay {
  let server: LocalServer | null = null;
  let starting: Promise<LocalServer> | null = null;
  const firsts = new Map<string, { at: number; count: number }>();
  const relay: Relay = { base: '', hostPort: '', request: async (r) => r, response: (_q, r) => r };

  const start = (): Promise<LocalServer> => {
    starting ??= localServer((incoming, out) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (c: Buffer) => chunks.push(c));
      incoming.on('end', () => {
        out.writeHead(500, { 'content-type': 'text/plain' });
        out.end('relay');
        const body = Buffer.concat(chunks);
        const target = Buffer.from((incoming.url ?? '/').slice(1), 'base64url').toString('utf8');
        let key = target;
        try {
          const env = JSON.parse(body.toString('utf8')) as { event_id?: unknown };
          key = `${target} ${String(env.event_id)}`;
        } catch {
          // not an envelope: one schedule per destination
        }
        const now = Date.now();
        const seen = firsts.get(key) ?? { at: now, count: 0 };
        firsts.set(key, { at: seen.at, count: seen.count + 1 });
        const when = retime(seen.count, now - seen.at);
        if (when === null) return;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(incoming.headers))
          if (v !== undefined && k !== 'host' && k !== 'content-length' && k !== 'connection')
            headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const timer = setTimeout(
          () => {
            fetch(target, { method: 'POST', headers, body }).then(
              (r) => r.arrayBuffer(),
              () => undefined,
            );
          },
          Math.max(0, seen.at + when - Date.now()),
        );
        timer.unref();
      });
    }).then((s) => {
      s.server.unref();
      server = s;
      relay.base = s.url;
      relay.hostPort = new URL(s.url).host;
      return s;
    });
    return starting;
  };

  relay.request = async (req, tools) => {
    if (req.method !== 'POST' || req.url.pathname !== '/v1/webhooks') return req;
    const body = jsonOf({ status: 200, headers: {}, body: req.body }) as { url?: unknown } | undefined;
    if (typeof body?.url !== 'string' || tools.control === undefined) return req;
    await start();
    await allowRelay(tools.control, relay.hostPort);
    const url = `${relay.base}/${Buffer.from(body.url, 'utf8').toString('base64url')}`;
    return { ...req, body: Buffer.from(JSON.stringify({ ...body, url })) };
  };

  relay.response = (_req, res) => {
    if (server === null) return res;
    const value = jsonOf(res);
    if (value === undefined) return res;
    const back = (v: unknown): unknown => {
      if (typeof v === 'string' && v.startsWith(`${relay.base}/`))
        return Buffer.from(v.slice(relay.base.length + 1), 'base64url').toString('utf8');
      if (Array.isArray(v)) return v.map(back);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, back(x)]));
      return v;
    };
    return withJson(res, back(value));
  };
  return relay;
}

/** Adds the relay to local_webhook_targets and restarts (the allowlist is read at startup), as the checks do for their receiver. */
async function allowRelay(control: { url: string; secret: string }, hostPort: string): Promise<void> {
  const headers = { authorization: `Bearer ${control.secret}`, 'content-type': 'application/json' };
  const settings = (await (await fetch(`${control.url}/control/settings`, { headers })).json()) as { local_webhook_targets?: string[] };
  const targets = settings.local_webhook_targets ?? [];
  if (targets.includes(hostPort)) return;
  await (
    await fetch(`${control.url}/control/settings`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ local_webhook_targets: [...targets, hostPort] }),
    })
  ).arrayBuffer();
  await (await fetch(`${control.url}/control/restart`, { method: 'POST', headers })).arrayBuffer();
  // The API answers again once the restart is through (CONTROL.md: restart returns when it is done; poll to be sure).
  for (let i = 0; i < 100; i++) {
    try {
      const s = (await (await fetch(`${control.url}/control`, { headers })).arrayBuffer()).byteLength;
      if (s > 0) return;
    } catch {
      // not back yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
