/**
 * Secrets the operator gave (the control secret, a --token) never reach a
 * report: they are replaced by shell variables, so the curl lines still work
 * once the variables are set. Tokens the suite mints itself are disposable
 * (a reset erases them) and are shown as they are.
 */
export class Secrets {
  readonly #map = new Map<string, string>();

  add(secret: string, placeholder: string): void {
    if (secret.length > 0) this.#map.set(secret, placeholder);
  }

  redact(text: string): string {
    let out = text;
    for (const [secret, placeholder] of this.#map) out = out.split(secret).join(placeholder);
    return out;
  }

  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) out[k] = this.redact(v);
    return out;
  }

  /** For the report header: which variables the curl lines use. */
  placeholders(): string[] {
    return [...new Set(this.#map.values())];
  }
}
