import { describe, expect, it } from 'vitest';
import {
  closesAt,
  type DeliveryWindow,
  evaluateWindows,
  opensAt,
  type SourcedWindow,
  sourcedWindows,
  windowProblems,
} from './windows.ts';

const at = (iso: string) => new Date(iso);
const w = (over: Partial<SourcedWindow>): SourcedWindow => ({
  name: 'w',
  kind: 'allow',
  schedule: '0 9 * * *',
  duration: '1h',
  source: 'app',
  ...over,
});

describe('delivery windows', () => {
  it('opens on the schedule for the duration, in UTC by default', () => {
    const win = w({});
    expect(closesAt(win, at('2026-03-02T08:59:59Z'))).toBeNull();
    expect(closesAt(win, at('2026-03-02T09:00:00Z'))?.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(closesAt(win, at('2026-03-02T09:59:59Z'))?.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(closesAt(win, at('2026-03-02T10:00:00Z'))).toBeNull();
    expect(opensAt(win, at('2026-03-02T10:00:00Z'))?.toISOString()).toBe('2026-03-03T09:00:00.000Z');
  });

  it('with no window, or only closed deny windows, syncs run', () => {
    expect(evaluateWindows([], at('2026-03-02T12:00:00Z')).open).toBe(true);
    expect(evaluateWindows([w({ kind: 'deny' })], at('2026-03-02T12:00:00Z')).open).toBe(true);
  });

  it('outside every allow window: blocked, naming the window that opens first and when', () => {
    const early = w({ name: 'early', schedule: '0 6 * * *' });
    const late = w({ name: 'late', schedule: '0 20 * * *', source: 'org' });
    const v = evaluateWindows([early, late], at('2026-03-02T12:00:00Z'));
    expect(v.open).toBe(false);
    if (v.open) return;
    expect(v.reason).toBe('outside-allow');
    expect(v.window.name).toBe('late');
    expect(v.changesAt?.toISOString()).toBe('2026-03-02T20:00:00.000Z');
    expect(v.message).toContain('allow window "late" (org');
    expect(evaluateWindows([early, late], at('2026-03-02T06:30:00Z')).open).toBe(true);
  });

  it('a deny window wins over an open allow window', () => {
    const allow = w({ name: 'day', schedule: '0 8 * * *', duration: '10h' });
    const deny = w({ name: 'lunch', kind: 'deny', schedule: '0 12 * * *', duration: '1h', source: 'cluster' });
    const v = evaluateWindows([allow, deny], at('2026-03-02T12:15:00Z'));
    expect(v).toMatchObject({ open: false, reason: 'deny', window: { name: 'lunch', source: 'cluster' } });
    if (!v.open) expect(v.changesAt?.toISOString()).toBe('2026-03-02T13:00:00.000Z');
    expect(evaluateWindows([allow, deny], at('2026-03-02T13:00:00Z')).open).toBe(true);
  });

  it('a window crossing midnight covers the next morning', () => {
    const night = w({ name: 'night', kind: 'deny', schedule: '0 22 * * *', duration: '8h' });
    expect(evaluateWindows([night], at('2026-03-02T23:30:00Z')).open).toBe(false);
    expect(evaluateWindows([night], at('2026-03-03T05:59:00Z')).open).toBe(false);
    expect(evaluateWindows([night], at('2026-03-03T06:00:00Z')).open).toBe(true);
    expect(closesAt(night, at('2026-03-03T01:00:00Z'))?.toISOString()).toBe('2026-03-03T06:00:00.000Z');
  });

  it('reads the schedule in the window time zone', () => {
    const berlin = w({ schedule: '0 9 * * 1-5', duration: '8h', timeZone: 'Europe/Berlin' });
    // Winter: Berlin is UTC+1, so 09:00 there is 08:00 UTC.
    expect(closesAt(berlin, at('2026-01-05T07:59:00Z'))).toBeNull();
    expect(closesAt(berlin, at('2026-01-05T08:00:00Z'))?.toISOString()).toBe('2026-01-05T16:00:00.000Z');
    // Summer: UTC+2.
    expect(closesAt(berlin, at('2026-07-06T07:00:00Z'))?.toISOString()).toBe('2026-07-06T15:00:00.000Z');
    // Saturday: no opening.
    expect(closesAt(berlin, at('2026-01-10T10:00:00Z'))).toBeNull();
  });

  it('across a DST change the opening follows the wall clock, and the duration is elapsed time', () => {
    // Europe/Berlin springs forward on 2026-03-29 at 02:00 → 03:00: a 01:00 opening for 3h ends at 05:00 local,
    // which is 03:00 UTC (01:00 local is still UTC+1 = 00:00 UTC).
    const night = w({ schedule: '0 1 * * *', duration: '3h', timeZone: 'Europe/Berlin' });
    expect(closesAt(night, at('2026-03-29T00:30:00Z'))?.toISOString()).toBe('2026-03-29T03:00:00.000Z');
    // The next day 01:00 local is UTC+2 = 23:00 UTC the day before.
    expect(opensAt(night, at('2026-03-29T12:00:00Z'))?.toISOString()).toBe('2026-03-29T23:00:00.000Z');
    // America/New_York falls back on 2026-11-01 at 02:00 → 01:00: 09:00 local is 14:00 UTC afterwards.
    const ny = w({ schedule: '0 9 * * *', duration: '1h', timeZone: 'America/New_York' });
    expect(opensAt(ny, at('2026-10-31T14:00:00Z'))?.toISOString()).toBe('2026-11-01T14:00:00.000Z');
    expect(opensAt(ny, at('2026-10-30T12:00:00Z'))?.toISOString()).toBe('2026-10-30T13:00:00.000Z');
  });

  it('names the problems of windows that cannot be evaluated', () => {
    const bad: DeliveryWindow[] = [
      { name: 'a', kind: 'allow', schedule: '0 9 * *', duration: '1h' },
      { name: 'b', kind: 'deny', schedule: '0 9 * * *', duration: '200h' },
      { name: 'c', kind: 'deny', schedule: '0 9 * * *', duration: '1h', timeZone: 'Mars/Olympus' },
      { name: 'c', kind: 'deny', schedule: '99 9 * * *', duration: '1h' },
    ];
    const problems = windowProblems(bad);
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/window 0 \(a\): schedule "0 9 \* \*" must have five fields/);
    expect(problems.join('\n')).toMatch(/window 1 \(b\): duration "200h"/);
    expect(problems.join('\n')).toMatch(/unknown time zone "Mars\/Olympus"/);
    expect(problems.join('\n')).toMatch(/window 3 \(c\): the name is used twice/);
    expect(windowProblems([w({})])).toEqual([]);
  });

  it('marks where each window comes from', () => {
    const one: DeliveryWindow = { name: 'x', kind: 'deny', schedule: '0 0 * * *', duration: '1h' };
    expect(sourcedWindows({ app: [one], org: [one] }).map((s) => s.source)).toEqual(['app', 'org']);
  });
});
