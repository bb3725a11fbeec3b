/**
 * Health values ordered from best to worst, the "worse of" aggregation every health check combines with, and the
 * small readers the per-kind checks share. A kind's check returns one `Health` for one live object; its message
 * is the detail only (`1/3 ready`): the dispatcher (./index.ts) puts the group, kind and name in front.
 */
import type { HealthStatus } from '../../core/app-schema.ts';

export type { HealthStatus };

/** Best first: Healthy < Progressing < Unknown < Missing < Degraded. */
export const HEALTH_ORDER: readonly HealthStatus[] = ['Healthy', 'Progressing', 'Unknown', 'Missing', 'Degraded'];

/** Health of one object: the status and, when not Healthy (or Healthy with a remark, e.g. suspended), why. */
export interface Health {
  status: HealthStatus;
  message?: string;
}

/** The worse of two health values by HEALTH_ORDER. */
export function worse(a: HealthStatus, b: HealthStatus): HealthStatus {
  return HEALTH_ORDER.indexOf(a) >= HEALTH_ORDER.indexOf(b) ? a : b;
}

/** A live object as the health checks read it (plain JSON from the API server). */
export interface LiveObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    generation?: number;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** One entry of `status.conditions`. */
export interface Condition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** Reads a non-negative integer field, defaulting to 0. */
export function count(obj: Record<string, unknown> | undefined, key: string, fallback = 0): number {
  const v = obj?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** A condition of `status.conditions` by type. */
export function condition(obj: LiveObject, type: string): Condition | undefined {
  const list = obj.status?.['conditions'];
  if (!Array.isArray(list)) return undefined;
  return list.find((c) => (c as { type?: string })?.type === type) as Condition | undefined;
}

/** True when the condition `type` has `status` (`True`, `False`, `Unknown`). */
export function conditionIs(obj: LiveObject, type: string, status: string): boolean {
  return condition(obj, type)?.status === status;
}

/** What a condition says, for a message: `reason: message`, either alone, or `fallback`. */
export function said(c: Condition | undefined, fallback: string): string {
  const parts = [c?.reason, c?.message?.split('\n')[0]].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length > 0 ? parts.join(': ') : fallback;
}

/** True when the controller has not yet seen the latest spec (a workload without observedGeneration: not yet). */
export function staleGeneration(obj: LiveObject): boolean {
  const gen = obj.metadata?.generation;
  const observed = obj.status?.['observedGeneration'];
  return typeof gen === 'number' && (typeof observed !== 'number' || observed < gen);
}

/** The observed generation when the object reports one (a number, or a numeric string as Argo Rollouts writes). */
export function observedGeneration(obj: LiveObject): number | undefined {
  const observed = obj.status?.['observedGeneration'];
  if (typeof observed === 'number') return observed;
  if (typeof observed === 'string' && /^\d+$/.test(observed)) return Number(observed);
  return undefined;
}

/** True when the object reports an observed generation older than its generation (kstatus's first rule). */
export function behindGeneration(obj: LiveObject): boolean {
  const gen = obj.metadata?.generation;
  const observed = observedGeneration(obj);
  return typeof gen === 'number' && observed !== undefined && observed < gen;
}

/** True when `spec.suspend` is set (CronJob, Job, Flux objects). */
export function suspended(obj: LiveObject): boolean {
  return obj.spec?.['suspend'] === true;
}

/** Shorthands for the checks' answers. */
export const healthy = (message?: string): Health => (message ? { status: 'Healthy', message } : { status: 'Healthy' });
export const progressing = (message: string): Health => ({ status: 'Progressing', message });
export const degraded = (message: string): Health => ({ status: 'Degraded', message });
