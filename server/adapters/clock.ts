/**
 * Time, behind an interface so tests (and sinon's fake timers) can drive it.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};
