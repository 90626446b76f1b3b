/**
 * The application's integration settings page, served on the control
 * listener (docs/decisions/020-settings-page.md):
 *
 *   GET /settings              the page (HTML; holds no data, served without the secret)
 *   GET /settings/app.js       its script (same-origin file: the CSP allows no inline script),
 *   GET /settings/api.js       a module that script imports (the Control API calls),
 *   GET /settings/lists.js     and another (the tokens, pairings, webhooks and deliveries lists)
 *   GET /settings/app.css      its style sheet
 *   GET /settings/icon.svg     its icon (so the browser does not ask /favicon.ico)
 *   GET /control/tokens        the token list the page shows (needs the secret, like every /control route)
 *
 * The page is a thin client of the Control API: it asks for the control
 * secret once, keeps it in sessionStorage and sends it as
 * `Authorization: Bearer` on each fetch. Every data call goes through the
 * Control API's own secret check.
 *
 * registerSettingsPage is called once by createControlApp, before its secret
 * check, so the page itself loads without the secret; it also installs the
 * browser guard (guard.ts) in front of every control route.
 */
import { readFileSync } from 'node:fs';
import type { Express, NextFunction, Request, Response } from 'express';
import { bearerToken } from '../../kernel/auth.ts';
import type { TokensRepo } from '../../kernel/store/tokens-repo.ts';
import { secretMatches } from '../secret.ts';
import { listTokens } from '../tokens-listing.ts';
import { browserGuard } from './guard.ts';

/** Where the page lives on the control listener. */
const SETTINGS_PAGE_PATH = '/settings';

/**
 * The page's Content-Security-Policy: only same-origin script, style, images
 * and fetches; no inline script or style, no plugins, no <base>, no form
 * submission anywhere (the forms are handled by the script; without it they
 * must not post the secret into a URL), never framed, and Trusted Types
 * required for any DOM sink that parses HTML (the script uses none).
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types',
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
}

function asset(file: string, type: string): Asset {
  return { body: readFileSync(new URL(`./assets/${file}`, import.meta.url)), type };
}

const ASSETS: Readonly<Record<string, Asset>> = {
  [SETTINGS_PAGE_PATH]: asset('page.html', 'text/html; charset=utf-8'),
  [`${SETTINGS_PAGE_PATH}/app.js`]: asset('app.js', 'text/javascript; charset=utf-8'),
  [`${SETTINGS_PAGE_PATH}/api.js`]: asset('api.js', 'text/javascript; charset=utf-8'),
  [`${SETTINGS_PAGE_PATH}/lists.js`]: asset('lists.js', 'text/javascript; charset=utf-8'),
  [`${SETTINGS_PAGE_PATH}/app.css`]: asset('app.css', 'text/css; charset=utf-8'),
  [`${SETTINGS_PAGE_PATH}/icon.svg`]: asset('icon.svg', 'image/svg+xml'),
};

/** Installs the browser guard, the page and GET /control/tokens on the control app, ahead of its secret check. */
/** What the page's routes use: the control secret and the current tokens (rebuilt at every restart). */
export interface SettingsPageDeps {
  secret: string;
  tokens: () => Pick<TokensRepo, 'list'>;
}

export function registerSettingsPage(app: Express, ctl: SettingsPageDeps): void {
  app.use(browserGuard((path) => path === SETTINGS_PAGE_PATH || path === `${SETTINGS_PAGE_PATH}/`));

  for (const [path, file] of Object.entries(ASSETS)) {
    app.get(path, (_req: Request, res: Response) => {
      res.status(200);
      res.setHeader('Content-Type', file.type);
      res.setHeader('Content-Security-Policy', PAGE_CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      res.setHeader('Cache-Control', 'no-store');
      res.end(file.body);
    });
  }

  // Registered here, ahead of the control app's secret check, because this is
  // the one call createControlApp makes for the page. It answers only a
  // request that carries the secret; anything else falls through to that
  // check, which refuses it exactly as it refuses every other route.
  app.get('/control/tokens', (req: Request, res: Response, next: NextFunction) => {
    const presented = bearerToken(req.headers.authorization);
    if (presented === null || !secretMatches(presented, ctl.secret)) {
      next();
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(listTokens(ctl.tokens())));
  });
}
