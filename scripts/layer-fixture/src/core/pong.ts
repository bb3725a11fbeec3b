/** Fixture for scripts/check-layers.test.ts: the other half of a cycle. */
import { ping } from './ping.ts';

export const pong = (n: number): number => (n > 0 ? ping(n - 1) : 1);
