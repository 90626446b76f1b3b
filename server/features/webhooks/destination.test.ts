/**
 * Where a webhook may point, without the network: the hostile corpus
 * (fixtures/webhooks/hostile-urls.json) is refused for the reason it names,
 * the legitimate corpus is accepted, and the allowlist rules hold. Host names
 * resolve through a fake resolver built from the corpora's resolves_to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Allowlist, checkDestination, DestinationRefused, type Resolver } from './destination.ts';

interface CorpusEntry {
  url: string;
  category?: string;
  reason?: string;
  resolves_to?: string[];
}

function corpus(name: string): CorpusEntry[] {
  return (JSON.parse(readFileSync(new URL(`../../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as { urls: CorpusEntry[] }).urls;
}

const HOSTILE = corpus('hostile-urls.json');
const LEGITIMATE = corpus('legitimate-urls.json');

/** Answers from a table; anything else does not resolve (as ENOTFOUND would). */
function tableResolver(table: Record<string, string[]>, calls: string[] = []): Resolver {
  return async (host) => {
    calls.push(host);
    const found = table[host];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

function resolverFor(entries: CorpusEntry[]): Resolver {
  const table: Record<string, string[]> = {};
  for (const e of entries) {
    if (e.resolves_to === undefined) continue;
    const host = new URL(e.url).hostname.replace(/\.+$/, '');
    table[host] = e.resolves_to;
  }
  return tableResolver(table);
}

const MESSAGE_BY_CATEGORY: Record<string, RegExp> = {
  loopback: /Local webhook targets/,
  private: /Local webhook targets/,
  metadata: /metadata.*never allowed|never allowed/,
  link_local: /link-local.*never allowed/,
  unspecified: /unspecified.*never allowed/,
  multicast: /multicast.*never allowed/,
  broadcast: /broadcast.*never allowed/,
  reserved: /never allowed/,
  credentials: /user name or password/,
  scheme: /must start with http:\/\/ or https:\/\//,
  syntax: /not a valid URL|white space|backslash|no host/,
  unresolvable: /does not resolve/,
};

async function refusal(url: string, opts: { resolver: Resolver; allowlist?: Allowlist }): Promise<string> {
  try {
    await checkDestination(url, { resolver: opts.resolver, allowlist: opts.allowlist ?? new Allowlist([]) });
  } catch (err) {
    assert.ok(err instanceof DestinationRefused, `${url}: unexpected ${String(err)}`);
    return err.message;
  }
  assert.fail(`${JSON.stringify(url)} was accepted`);
}

test('the hostile corpus has at least 60 entries, each with a reason and a known category', () => {
  assert.ok(HOSTILE.length >= 60, `${HOSTILE.length} entries`);
  for (const e of HOSTILE) {
    assert.ok(typeof e.reason === 'string' && e.reason.length > 0, e.url);
    assert.ok(e.category !== undefined && e.category in MESSAGE_BY_CATEGORY, `${e.url}: category ${e.category}`);
  }
  assert.equal(new Set(HOSTILE.map((e) => e.url)).size, HOSTILE.length, 'no duplicates');
});

test('every hostile URL is refused, for the reason its entry names', async () => {
  const resolver = resolverFor(HOSTILE);
  for (const e of HOSTILE) {
    const message = await refusal(e.url, { resolver });
    assert.match(message, MESSAGE_BY_CATEGORY[e.category!]!, `${JSON.stringify(e.url)} (${e.reason})`);
  }
});

test('never-allowed addresses stay refused even when their exact host:port is allowlisted', async () => {
  const never = HOSTILE.filter((e) =>
    ['metadata', 'link_local', 'unspecified', 'multicast', 'broadcast', 'reserved'].includes(e.category!),
  );
  assert.ok(never.length >= 25);
  const entries = never.flatMap((e) => {
    try {
      const u = new URL(e.url);
      return [`${u.hostname.replace(/\.+$/, '')}:${u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : u.port}`];
    } catch {
      return [];
    }
  });
  const allowlist = new Allowlist(entries.filter((entry) => /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(entry)));
  assert.ok(allowlist.size >= 20);
  const resolver = resolverFor(never);
  for (const e of never) {
    assert.match(await refusal(e.url, { resolver, allowlist }), /never allowed/, e.url);
  }
});

test('every legitimate URL is accepted with an empty allowlist, and resolves to what was checked', async () => {
  assert.ok(LEGITIMATE.length >= 20);
  const resolver = resolverFor(LEGITIMATE);
  for (const e of LEGITIMATE) {
    const checked = await checkDestination(e.url, { resolver, allowlist: new Allowlist([]) });
    assert.ok(checked.addresses.length >= 1, e.url);
    if (e.resolves_to !== undefined) {
      assert.deepEqual(
        checked.addresses.map((a) => a.address),
        e.resolves_to,
        e.url,
      );
    }
  }
});

test('IP literals never reach the resolver; names are resolved once, without their trailing dot', async () => {
  const calls: string[] = [];
  const resolver = tableResolver({ 'example.com': ['93.184.216.34'] }, calls);
  await checkDestination('http://93.184.216.34/', { resolver, allowlist: new Allowlist([]) });
  await checkDestination('http://[2606:2800:220:1:248:1893:25c8:1946]/', { resolver, allowlist: new Allowlist([]) });
  await refusal('http://2130706433/', { resolver });
  assert.deepEqual(calls, []);
  const checked = await checkDestination('https://EXAMPLE.com./x', { resolver, allowlist: new Allowlist([]) });
  assert.deepEqual(calls, ['example.com']);
  assert.equal(checked.hostname, 'example.com');
  assert.equal(checked.port, 443);
});

test('allowlist: the exact host:port opens a loopback or private destination, and nothing else does', async () => {
  const resolver = tableResolver({ localhost: ['127.0.0.1', '::1'], 'nas.example': ['192.168.1.20'] });
  const allowlist = new Allowlist(['127.0.0.1:9000', 'LOCALHOST:9100', '[0:0::1]:9200', 'nas.example:80', '10.0.0.5:443']);

  const ok = async (url: string) => checkDestination(url, { resolver, allowlist });
  assert.equal((await ok('http://127.0.0.1:9000/hook')).port, 9000);
  assert.deepEqual(
    (await ok('http://localhost:9100/')).addresses.map((a) => a.address),
    ['127.0.0.1', '::1'],
  );
  await ok('http://[::1]:9200/');
  await ok('http://nas.example/');
  await ok('https://10.0.0.5/');

  for (const url of [
    'http://127.0.0.1:9001/', // another port
    'http://127.0.0.2:9000/', // another address of the same range
    'http://localhost:9000/', // the name of an allowlisted address is a different host
    'http://2130706433:9100/', // another spelling of an allowlisted name's address is a different host
    'http://[::1]:9000/',
    'http://10.0.0.5/', // port 80, not 443
  ]) {
    assert.match(await refusal(url, { resolver, allowlist }), /Local webhook targets/, url);
  }
});

test('an allowlist entry that is not host:port is ignored; an empty allowlist opens nothing', async () => {
  const resolver = tableResolver({});
  const allowlist = new Allowlist(['127.0.0.1', 'http://127.0.0.1:9000', '127.0.0.1:0', '127.0.0.1:70000', '[::1:9000']);
  assert.equal(allowlist.size, 0);
  assert.match(await refusal('http://127.0.0.1:9000/', { resolver, allowlist }), /Local webhook targets/);
});

test('a resolver that hangs counts as not resolving, within the timeout', async () => {
  const hang: Resolver = () => new Promise(() => undefined);
  await assert.rejects(
    checkDestination('http://slow.example/', { resolver: hang, allowlist: new Allowlist([]), resolveTimeoutMs: 50 }),
    (err: unknown) => err instanceof DestinationRefused && /did not resolve within/.test(err.message),
  );
});

test('a resolver that answers no address, or something that is not an address, is refused', async () => {
  const empty: Resolver = async () => [];
  assert.match(await refusal('http://empty.example/', { resolver: empty }), /does not resolve to any address/);
  const junk: Resolver = async () => [{ address: 'not-an-ip', family: 4 }];
  assert.match(await refusal('http://junk.example/', { resolver: junk }), /not an IP address/);
});

test('a URL longer than 2048 characters is refused', async () => {
  const url = `https://example.com/${'a'.repeat(2048)}`;
  assert.match(await refusal(url, { resolver: tableResolver({ 'example.com': ['93.184.216.34'] }) }), /at most 2048/);
});
