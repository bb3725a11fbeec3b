/**
 * Health values ordered from best to worst, and the "worse of" aggregation every health check combines with.
 * A kind's check returns one `Health` for one live object.
 */
import type { HealthStatus } from '../../core/app-schema.ts';

export type { HealthStatus };

/** Best first: Healthy < Progressing < Unknown < Missing < Degraded. */
export const HEALTH_ORDER: readonly HealthStatus[] = ['Healthy', 'Progressing', 'Unknown', 'Missing', 'Degraded'];

/** Health of one object: the status and, when not Healthy, why. */
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
  metadata?: { name?: string; namespace?: string; generation?: number };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Reads a non-negative integer field, defaulting to 0. */
export function count(obj: Record<string, unknown> | undefined, key: string, fallback = 0): number {
  const v = obj?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** A condition of `status.conditions` by type. */
export function condition(
  obj: LiveObject,
  type: string,
): { type: string; status?: string; reason?: string; message?: string } | undefined {
  const list = obj.status?.['conditions'];
  if (!Array.isArray(list)) return undefined;
  return list.find((c) => (c as { type?: string })?.type === type) as
    | { type: string; status?: string; reason?: string; message?: string }
    | undefined;
}

/** True when the controller has not yet seen the latest spec. */
export function staleGeneration(obj: LiveObject): boolean {
  const gen = obj.metadata?.generation;
  const observed = obj.status?.['observedGeneration'];
  return typeof gen === 'number' && (typeof observed !== 'number' || observed < gen);
}
