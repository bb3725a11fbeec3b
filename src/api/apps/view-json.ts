/**
 * The app object of contract §2.1 serialized ahead of time: the App cache keeps each App's JSON per resourceVersion,
 * so `GET /apps` joins ready strings instead of serializing every App on every request. The serializer is built from
 * the route's own response schema (AppObject) by the compiler Fastify itself uses, with Fastify's default options,
 * so the bytes are the ones Fastify would send.
 */
import fastJson from 'fast-json-stringify';
import { AppObject } from './schemas.ts';
import type { AppView } from './view.ts';

const serializeApp = fastJson(AppObject);

/** One app object as JSON, exactly as the `AppObject` response schema serializes it. */
export function appJson(view: AppView): string {
  return serializeApp(view);
}

/** The body of `GET /apps` (`{"apps":[…]}`) from app objects already serialized by appJson. */
export function appListJson(items: readonly string[]): string {
  return `{"apps":[${items.join(',')}]}`;
}
