import { describe, expect, it } from 'vitest';
import { SelfHealBrake } from './self-heal.ts';

describe('SelfHealBrake', () => {
  const app = { namespace: 'org-a', name: 'web' };

  it('allows `limit` reverts within the window, then none until the oldest leaves it', () => {
    const brake = new SelfHealBrake({ limit: 3, windowMs: 1000 });
    for (const t of [0, 100, 200]) {
      expect(brake.allows(app, t)).toBe(true);
      brake.record(app, t);
    }
    expect(brake.allows(app, 300)).toBe(false);
    expect(brake.retryInMs(app, 300)).toBe(700);
    expect(brake.allows(app, 1000)).toBe(true);
    expect(brake.retryInMs(app, 1000)).toBe(0);
  });

  it('counts each App on its own and forgets a deleted one', () => {
    const brake = new SelfHealBrake({ limit: 1, windowMs: 1000 });
    brake.record(app, 0);
    expect(brake.allows(app, 1)).toBe(false);
    expect(brake.allows({ ...app, name: 'other' }, 1)).toBe(true);
    brake.forget(app);
    expect(brake.allows(app, 1)).toBe(true);
  });
});
