/**
 * Secrets the operator gave (the control secret, a --token) never reach a
 * report or the terminal: they are replaced by shell variables, so the curl
 * lines still work once the variables are set. Tokens the suite mints itself
 * are disposable (a reset erases them) and are shown as they are.
 *
 * Redaction applies only to what is written and printed. The exchanges the
 * checks read (bodies, headers, the run log) keep the bytes the target sent:
 * a secret such as `sec` or `id` replaced inside a body would make a check
 * grade text the target never sent (the key `section` read as
 * `$MAS_CONTROL_SECRETtion`).
 *
 * A secret is replaced only where it stands as a whole word (not flanked by a
 * letter, digit or underscore): a secret is always sent as a whole value, and
 * a short one (`a`, `test`) must not turn every word holding it into a
 * placeholder and make the report unreadable.
 */
export class Secrets {
  readonly #map = new Map<string, string>();
  #pattern: RegExp | null = null;

  add(secret: string, placeholder: string): void {
    if (secret.length === 0) return;
    this.#map.set(secret, placeholder);
    this.#pattern = null;
  }

  get size(): number {
    return this.#map.size;
  }

  #regex(): RegExp | null {
    if (this.#map.size === 0) return null;
    if (this.#pattern === null) {
      // Longest first, so a secret that contains another is replaced whole.
      const alternatives = [...this.#map.keys()].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.#pattern = new RegExp(`(?<![A-Za-z0-9_])(?:${alternatives.join('|')})(?![A-Za-z0-9_])`, 'g');
    }
    return this.#pattern;
  }

  redact(text: string): string {
    const re = this.#regex();
    if (re === null || text.length === 0) return text;
    return text.replace(re, (secret) => this.#map.get(secret) ?? secret);
  }

  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) out[k] = this.redact(v);
    return out;
  }

  /**
   * A copy of `value` with every string value redacted (keys are names the
   * suite or the protocol chose, never secrets): for a record about to be
   * written. The value itself is left as it is, since the
   * checks of the run may still read it.
   */
  redactDeep<T>(value: T): T {
    if (this.#map.size === 0) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.redact(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v !== null && typeof v === 'object') {
        const out: Record<string, unknown> = {};
        for (const [k, inner] of Object.entries(v)) out[k] = walk(inner);
        return out;
      }
      return v;
    };
    return walk(value) as T;
  }

  /** For the report header: which variables the curl lines use. */
  placeholders(): string[] {
    return [...new Set(this.#map.values())];
  }
}
