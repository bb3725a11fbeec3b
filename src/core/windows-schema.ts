/**
 * The JSON Schema of a delivery window (./windows.ts), shared by the App's CRD (./app-schema.ts) and the API's
 * delivery-window routes. Kept apart from the window logic so the operator, which evaluates windows but never
 * validates them against a schema, does not load TypeBox (bench/README.md, issue 29: operator memory).
 */
import { Type } from 'typebox';

export const DeliveryWindowSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      description: 'Names the window in a held sync and a refusal (a DNS-1123 label).',
    }),
    // A string enum (not a union of literals): the CRD takes structural-schema keywords only.
    kind: Type.Unsafe<'allow' | 'deny'>(
      Type.String({
        enum: ['allow', 'deny'],
        description: 'allow: syncs run only inside some allow window; deny: no sync runs inside it (deny wins).',
      }),
    ),
    schedule: Type.String({
      minLength: 9,
      maxLength: 128,
      description: 'Five-field cron schedule (minute hour day-of-month month day-of-week) of the openings.',
    }),
    duration: Type.String({
      pattern: '^([0-9]{1,6}(m|h))+$',
      maxLength: 32,
      description: 'How long the window stays open after each opening (e.g. 1h, 8h30m; at most 168h).',
    }),
    timeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA time zone the schedule is read in (default UTC), e.g. Europe/Berlin.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A delivery window: an allow or deny period opening on a cron schedule for a duration.',
  },
);
