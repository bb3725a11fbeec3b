/**
 * The contract of /auth/cli-login, the browser half of `svc login --browser` (src/api/routes/cli-login.ts). Its
 * answers are HTML pages for a person in a browser; a request the schema refuses answers `{"error"}` like any other.
 */
import { Type } from 'typebox';
import { LEVELS } from '../../core/permissions.ts';
import { ErrorBody } from '../contract/errors.ts';
import { ref, StringEnum } from '../contract/schema.ts';

/** 1024..65535 */
const PORT =
  '^(102[4-9]|10[3-9][0-9]|1[1-9][0-9]{2}|[2-9][0-9]{3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$';
/** 0..3650 */
const DAYS = '^(0|[1-9][0-9]{0,2}|[1-2][0-9]{3}|3[0-5][0-9]{2}|36[0-4][0-9]|3650)$';

const handoff = {
  port: Type.String({ pattern: PORT, description: 'loopback port the CLI listens on (1024..65535)' }),
  state: Type.String({ pattern: '^[A-Za-z0-9_-]{16,128}$', description: 'the CLI’s random state, echoed back' }),
  name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[^\\u0000-\\u001f]*$',
      description: 'label of the machine, shown and in the key name (default "svc CLI")',
    }),
  ),
  role: Type.Optional(StringEnum(LEVELS, { description: 'role ceiling of the key (default admin)' })),
  expires_days: Type.Optional(Type.String({ pattern: DAYS, description: 'days until the key expires (default 90)' })),
};

const HtmlPage = (description: string) =>
  Type.Unsafe<string>({ description, content: { 'text/html': { schema: { type: 'string' } } } });

const tags = ['auth'];

export const cliLoginPageRoute = {
  tags,
  summary: 'Browser page of `svc login --browser`: confirm minting an API key for the command line',
  querystring: Type.Object(handoff),
  response: {
    200: HtmlPage('the confirmation page'),
    400: ref(ErrorBody, { description: 'a query that does not match this document' }),
    401: HtmlPage('a page asking to sign in (with an organization) first'),
  },
};

export const cliLoginConfirmRoute = {
  tags,
  summary:
    'Confirm `svc login --browser` (form post from the page above): mints the key (audited apikey.create) and hands it to the CLI on 127.0.0.1',
  consumes: ['application/x-www-form-urlencoded'],
  body: Type.Object({ ...handoff, confirm: Type.String({ maxLength: 100 }) }),
  response: {
    200: HtmlPage('a page that posts the key to the CLI'),
    400: ref(ErrorBody, { description: 'a form that does not match this document' }),
    401: HtmlPage('a page asking to sign in (with an organization) first'),
    403: HtmlPage('the confirmation does not match this session, or the key may not be minted'),
    415: ref(ErrorBody, { description: 'a body that is not a form' }),
  },
};
