import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'transport/default-address',
  clauses: ['transport.default.loopback-8420-http'],
  level: 'requirement',
  needs: [],
  description:
    'A target run with its default address answers GET http://127.0.0.1:8420/health with 200 ' +
    'over plain HTTP (run the suite with --base-url http://127.0.0.1:8420).',
  requirement: 'By default the service serves plain HTTP (no TLS) on the loopback interface at port 8420 (127.0.0.1:8420).',
  async run(ctx) {
    const u = new URL(ctx.env.baseUrl);
    const defaultAddress = u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost') && u.port === '8420';
    if (!defaultAddress)
      return ctx.skip(
        `the target was not given as its default address (base URL ${ctx.env.baseUrl}); start it with its defaults and use --base-url http://127.0.0.1:8420`,
      );
    const res = await ctx.api.get('/health');
    ctx.expect('transport.default.loopback-8420-http', 'GET http://127.0.0.1:8420/health over plain HTTP', x.status(res, 200), res);
  },
});
