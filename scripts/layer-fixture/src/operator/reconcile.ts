/** Fixture for scripts/check-layers.test.ts: an operator module. */
export const reconcile = (): string => 'reconciled';
