/**
 * Query-parameter descriptors: each knows how to parse its raw value and how
 * to describe itself in /openapi.json, so the two cannot drift apart.
 *
 * Raw values come from Express's "simple" query parser: a string, an array of
 * strings when a name repeats, or undefined. A repeated name is refused (422),
 * since a scalar parameter given twice has no single meaning.
 */
import { ApiError } from '../errors.ts';
import { clip } from '../../../common/clip.ts';

type RawQueryValue = string | string[] | undefined | Record<string, unknown>;

export interface QueryParam<T> {
  required: boolean;
  description: string;
  /** The JSON Schema of the parameter in the OpenAPI document. */
  schema: Record<string, unknown>;
  parse(name: string, raw: RawQueryValue): T;
}

function scalar(name: string, raw: RawQueryValue): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new ApiError('invalid_request', `query parameter ${name} must be given once, as a plain value`);
  return raw;
}

/**
 * An integer clamped into [min, max]: API.md says limit is "clamped", so an
 * out-of-range number is moved into range rather than refused. Text that is
 * not an integer at all is refused with 422.
 */
export function clampedInt(opts: { min: number; max: number; default: number; description: string }): QueryParam<number> {
  return {
    required: false,
    description: opts.description,
    // No minimum/maximum here: out-of-range integers are accepted and clamped,
    // so the schema must not tell clients to refuse them.
    schema: { type: 'integer', default: opts.default },
    parse(name, raw) {
      const text = scalar(name, raw);
      if (text === undefined || text === '') return opts.default;
      if (!/^[+-]?\d{1,30}$/.test(text))
        throw new ApiError('invalid_request', `query parameter ${name} must be an integer, got "${clip(text, 40)}"`);
      const n = Number(text);
      return Math.min(opts.max, Math.max(opts.min, n));
    },
  };
}

export function boolParam(opts: { default: boolean; description: string }): QueryParam<boolean> {
  return {
    required: false,
    description: opts.description,
    schema: { type: 'boolean', default: opts.default },
    parse(name, raw) {
      const text = scalar(name, raw);
      if (text === undefined || text === '') return opts.default;
      const lowered = text.toLowerCase();
      if (lowered === 'true' || lowered === '1') return true;
      if (lowered === 'false' || lowered === '0') return false;
      throw new ApiError('invalid_request', `query parameter ${name} must be true or false, got "${clip(text, 40)}"`);
    },
  };
}

/** A required string parameter parses to a string (a missing one is refused), an optional one to string | undefined. */
export function stringParam<const Required extends boolean>(opts: {
  required: Required;
  description: string;
  maxLength?: number;
  /** The code used when a required value is missing or empty (API.md: empty q is 400). */
  missingCode?: 'bad_request' | 'invalid_request';
}): QueryParam<Required extends true ? string : string | undefined> {
  const maxLength = opts.maxLength ?? 1000;
  return {
    required: opts.required,
    description: opts.description,
    schema: { type: 'string', maxLength, ...(opts.required ? { minLength: 1 } : {}) },
    parse(name, raw) {
      const text = scalar(name, raw);
      if (opts.required && (text === undefined || text.trim() === '')) {
        throw new ApiError(opts.missingCode ?? 'invalid_request', `query parameter ${name} is required and must not be empty`);
      }
      if (text !== undefined && Array.from(text).length > maxLength) {
        throw new ApiError('invalid_request', `query parameter ${name} must be at most ${maxLength} characters`);
      }
      // A required value was checked present just above.
      return text as Required extends true ? string : string | undefined;
    },
  };
}

export function enumParam<const V extends string>(opts: {
  values: readonly V[];
  aliases?: Record<string, V>;
  default: V;
  description: string;
}): QueryParam<V> {
  const aliases: Record<string, V> = opts.aliases ?? {};
  return {
    required: false,
    description: opts.description,
    schema: { type: 'string', enum: [...opts.values, ...Object.keys(aliases)], default: opts.default },
    parse(name, raw) {
      const text = scalar(name, raw);
      if (text === undefined || text === '') return opts.default;
      const lowered = text.toLowerCase();
      const found = opts.values.find((v) => v === lowered) ?? aliases[lowered];
      if (found === undefined) {
        const allowed = [...opts.values, ...Object.keys(aliases)].join(', ');
        throw new ApiError('invalid_request', `query parameter ${name} must be one of ${allowed}, got "${clip(text, 40)}"`);
      }
      return found;
    },
  };
}

/** Keeps echoed input short in error messages. */

export const paginationParams = {
  limit: clampedInt({ min: 1, max: 200, default: 50, description: 'page size, clamped to 1..200' }),
  offset: clampedInt({ min: 0, max: Number.MAX_SAFE_INTEGER, default: 0, description: 'items to skip' }),
};
