/** The route schema of GET /apps/stream (an addition to the contract: docs/compatibility.md). */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import { StringEnum } from '../contract/schema.ts';

export const appStreamRoute = {
  tags: ['apps'],
  summary:
    'Server-sent events of the App changes the caller may read (deployment:read; event `app`: {type: upsert|delete, app}); resumable with Last-Event-ID or ?since=<resource_version of a list page>; `reset` when it cannot resume exactly; `ready` once live; heartbeat comments',
  querystring: Type.Object(
    {
      since: Type.Optional(
        Type.String({
          pattern: '^[0-9]{1,20}(~[0-9]{1,20})?$',
          description: 'the event id to resume after when no Last-Event-ID header is sent',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Unsafe<unknown>({
      description: 'the event stream',
      // Each event as an SSE parser sees it: `data` is JSON text ({type, app} for `app`; {reason} for `reset`;
      // {resource_version} for `ready`).
      content: {
        'text/event-stream': {
          schema: Type.Object({
            event: StringEnum(['app', 'reset', 'ready'] as const),
            data: Type.String(),
            id: Type.Optional(Type.String()),
          }),
        },
      },
    }),
    ...errors(),
  },
};
