/** Fencing of the operator's writes: once this process may no longer write, every write barrier throws. */

/** Thrown at a write barrier when `mayWrite` says no; the reconcile ends without touching anything more. */
export class FencedError extends Error {
  constructor() {
    super('this operator may no longer write (not leader or stopping)');
    this.name = 'FencedError';
  }
}
