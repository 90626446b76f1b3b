/**
 * The operations table as one lookup: method + path → the operation's entry
 * and its decoded path parameters. app.ts uses it in place of one Express
 * route per operation: Express's router tries its routes one after another,
 * each through its own layer machinery, for every request, and that walk was
 * a large share of what a cheap call such as GET /v1/whoami cost
 * (docs/decisions/065-request-path.md).
 *
 * The matching is Express 5's for these templates, so nothing a client sees
 * changes: rows are tried in table order; the path is case-sensitive; one
 * trailing slash is allowed; a {param} is one or more characters other than
 * '/', percent-decoded, and a path whose parameter is not valid
 * percent-encoding throws URIError (a 400, errors.ts) once its template
 * matches, whatever the method; HEAD is served by the GET row.
 */
export interface RouteRow {
  method: string;
  /** OpenAPI path template, e.g. /v1/meetings/{id}. */
  path: string;
}

export interface RouteMatch<T> {
  entry: T;
  params: Record<string, string>;
}

interface Compiled<T> {
  entry: T;
  /** For a template without parameters: the path itself. */
  literal: string | null;
  /** For a template with parameters: its matcher and the parameter names in order. */
  re: RegExp | null;
  names: readonly string[];
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class RouteTable<T> {
  /** Rows by upper-case method, in table order. */
  readonly #byMethod = new Map<string, Compiled<T>[]>();
  /** Every template with parameters, for the decode check of any method. */
  readonly #templates: Compiled<T>[] = [];

  constructor(rows: readonly (RouteRow & { entry: T })[]) {
    for (const row of rows) {
      const compiled = compile(row.path, row.entry);
      const method = row.method.toUpperCase();
      let list = this.#byMethod.get(method);
      if (list === undefined) this.#byMethod.set(method, (list = []));
      list.push(compiled);
      if (compiled.re !== null) this.#templates.push(compiled);
    }
  }

  /** The row that serves this request, or null (the caller answers 404 or 405). Throws URIError for a bad parameter. */
  match(method: string, path: string): RouteMatch<T> | null {
    const list = this.#byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (list !== undefined) {
      for (const c of list) {
        if (c.literal !== null) {
          if (path === c.literal || (path.length === c.literal.length + 1 && path.endsWith('/') && path.startsWith(c.literal))) {
            return { entry: c.entry, params: NO_PARAMS };
          }
          continue;
        }
        const m = c.re!.exec(path);
        if (m !== null) return { entry: c.entry, params: decode(c.names, m) };
      }
    }
    // Express decodes the parameters of the first template that matches the
    // path before it looks at the method: a bad one is a 400 for every method.
    for (const c of this.#templates) {
      const m = c.re!.exec(path);
      if (m !== null) {
        decode(c.names, m);
        break;
      }
    }
    return null;
  }

  /** The upper-case methods with a row whose template matches this path (OPTIONS and 405 list them); HEAD is the caller's to add. */
  methodsOf(path: string): string[] {
    const methods: string[] = [];
    for (const [method, list] of this.#byMethod) if (list.some((c) => matches(c, path))) methods.push(method);
    return methods;
  }
}

function matches<T>(c: Compiled<T>, path: string): boolean {
  if (c.literal !== null)
    return path === c.literal || (path.length === c.literal.length + 1 && path.endsWith('/') && path.startsWith(c.literal));
  return c.re!.test(path);
}

function compile<T>(template: string, entry: T): Compiled<T> {
  const names: string[] = [];
  const parts = template.split(/\{([a-z_]+)\}/);
  if (parts.length === 1) return { entry, literal: template, re: null, names };
  let pattern = '';
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      names.push(part);
      pattern += '([^/]+)';
    } else pattern += part.replace(/[.*+?^$()|[\]\\/]/g, '\\$&');
  });
  return { entry, literal: null, re: new RegExp(`^${pattern}/?$`), names };
}

function decode(names: readonly string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) params[names[i]!] = decodeURIComponent(m[i + 1]!);
  return params;
}
