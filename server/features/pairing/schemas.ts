/**
 * Bodies of the pairing routes (API.md, Pairing; docs/decisions/015-pairing.md).
 */
import { z } from 'zod';
import { codePointString, CONTROL_CHARS, Timestamp } from '../../kernel/common-schemas.ts';
import { PAIRING_STATES } from './service.ts';
import { SCOPES } from '../../kernel/scopes.ts';

const ClientName = codePointString({ min: 1, max: 100 })
  .refine((t) => !CONTROL_CHARS.test(t), { message: 'must not contain control characters' })
  .refine((t) => t.trim().length > 0, { message: 'must not be blank' });

/** Scope names are strings parsed as tokens parse them: unknown names drop, delete is never granted. */
const ScopeNames = z.array(z.string().max(64)).max(64);

export const PairRequestBody = z
  .strictObject({
    client_name: ClientName.meta({ description: 'shown to the person who approves; becomes the token name' }),
    scopes: ScopeNames.meta({ description: 'read, record, write; other names are dropped; delete is never granted' }),
  })
  .meta({ id: 'PairRequestBody' });

const pairingFields = {
  pairing_id: z.string().meta({ description: 'unguessable (192 random bits); the only key to the poll' }),
  state: z.enum(PAIRING_STATES),
  client_name: z.string(),
  scopes: z.array(z.enum(SCOPES)).meta({ description: 'what was asked, after parsing' }),
  expires_at: Timestamp.meta({ description: 'when a pending request expires' }),
};

export const PairRequestResponse = z
  .object({ ...pairingFields, poll_url: z.string().meta({ description: 'GET it, without a token, for the answer' }) })
  .meta({ id: 'PairRequestResponse' });

export const PairStatusResponse = z
  .object({
    ...pairingFields,
    granted_scopes: z.array(z.enum(SCOPES)).nullable().meta({ description: 'the scopes of the minted token once approved; null before' }),
    token: z.string().optional().meta({ description: 'the raw token: on the first poll after approval only, never again' }),
    token_id: z.string().nullable().meta({ description: 'the id of the minted token once approved' }),
  })
  .meta({ id: 'PairStatusResponse' });
