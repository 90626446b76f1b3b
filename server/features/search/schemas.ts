/**
 * DTOs of GET /v1/search.
 */
import { z } from 'zod';
import { Timestamp } from '../../kernel/common-schemas.ts';

export const SearchResult = z
  .object({
    meeting_id: z.string(),
    title: z.string(),
    match_context: z.string().meta({ description: 'the words around the hit' }),
    timestamp: Timestamp.meta({ description: 'when the meeting was created' }),
    audio_start_time: z
      .number()
      .nonnegative()
      .optional()
      .meta({ description: 'seconds into the recording where the matching segment starts; absent for title hits' }),
  })
  .meta({ id: 'SearchResult' });

export const SearchResponse = z.object({ results: z.array(SearchResult) }).meta({ id: 'SearchResponse' });
