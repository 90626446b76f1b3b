/** fast-check arbitraries the checks share. */
import fc from 'fast-check';
import type { TokenModel } from '../spec/auth-rules.ts';

const REQUESTABLE_SCOPES = ['read', 'record', 'write', 'delete', 'admin', 'READ', 'all'] as const;

/** A token as the Control API mints it: requested scope strings (junk included), origin, kind. */
export const tokenArbitrary: fc.Arbitrary<TokenModel> = fc.record({
  requested: fc.subarray([...REQUESTABLE_SCOPES]),
  origin: fc.constantFrom('loopback' as const, 'paired' as const, 'lan' as const),
  kind: fc.constantFrom('standard' as const, 'first_party' as const, 'assistant' as const),
});

/** Text that every reasonable implementation stores as given: NFC, no control characters, no outer spaces, not blank. */
export function plainText(options: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc
    .string({ unit: 'grapheme', minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 60 })
    .map((s) => s.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\u2028\u2029]/gu, '').trim())
    .filter((s) => s.length >= (options.minLength ?? 1) && s === s.normalize('NFC') && /\S/.test(s));
}

/** Characters for which UTF-16 units, code points and graphemes count the same. */
const BMP_SIMPLE = Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 éüßøñçÅ会議計画дийλω');

/** A string of exactly n characters from BMP_SIMPLE, not starting or ending with a space. */
export function simpleString(n: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...BMP_SIMPLE), { minLength: n, maxLength: n }).map((chars) => {
    const s = chars.join('');
    return s.length === 0 ? s : `${s[0] === ' ' ? 'x' : s[0]}${s.slice(1, -1)}${s.length > 1 ? (s.at(-1) === ' ' ? 'y' : s.at(-1)) : ''}`;
  });
}
