/**
 * --shard K/N: a deterministic split by a hash of the check id, so a check
 * always lands in the same shard whatever else is selected, and the N shards
 * together hold every selected check exactly once.
 */
import { fnv1a } from '../harness/hash.ts';

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (m === null) throw new Error(`--shard must look like K/N (e.g. 2/4), got ${JSON.stringify(text)}`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new Error(`--shard ${text}: K must be between 1 and N`);
  return { index, count };
}

export function shardOf(id: string, count: number): number {
  return (fnv1a(id) % count) + 1;
}

export function inShard<T extends { id: string }>(checks: readonly T[], shard: Shard | undefined): T[] {
  if (shard === undefined) return [...checks];
  return checks.filter((c) => shardOf(c.id, shard.count) === shard.index);
}
