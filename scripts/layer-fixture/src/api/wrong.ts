/** Fixture for scripts/check-layers.test.ts: the API importing the operator, which the layering forbids. */
import { reconcile } from '../operator/reconcile.ts';

export const wrong = (): string => reconcile();
