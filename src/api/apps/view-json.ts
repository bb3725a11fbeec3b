/**
 * The app object of contract §2.1 serialized ahead of time: the App cache keeps each App's JSON per resourceVersion,
 * so `GET /apps` joins ready bytes instead of serializing every App on every request. The serializer is built from
 * the route's own response schema (the App component) by the compiler Fastify itself uses, with Fastify's default options,
 * so the bytes are the ones Fastify would send.
 */
import fastJson from 'fast-json-stringify';
import { APP_OBJECT_COMPONENTS, App } from './contract.ts';
import type { AppView } from './view.ts';

const serializeApp = fastJson(App, {
  schema: Object.fromEntries(APP_OBJECT_COMPONENTS.map((c) => [c.$id, c])),
});

const OPEN = Buffer.from('{"apps":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** One app object as UTF-8 JSON, exactly as the App component serializes it. */
export function appJson(view: AppView): Buffer {
  return Buffer.from(serializeApp(view));
}

/**
 * The body of `GET /apps` (`{"apps":[…]}`, plus the page fields of a query) from app objects already serialized by
 * appJson: bytes are copied, not re-encoded, so a list of 1000 Apps costs one memory copy.
 */
export function appListJson(items: readonly Buffer[], page?: PageFields): Buffer {
  const parts: Buffer[] = [OPEN];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  if (page) {
    parts.push(Buffer.from(`],${JSON.stringify(page).slice(1)}`));
    return Buffer.concat(parts);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** What a page of `GET /apps` adds beside `apps` (see list-query.ts). */
export interface PageFields {
  total: number;
  next_cursor: string | null;
  resource_version: string;
}
