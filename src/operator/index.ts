/** The operator's entry point. Placeholder until the reconciler lands (issue 4): refuses to start. */
import type { Config } from '../config.ts';
import { UnavailableError } from '../core/errors.ts';
import type { Logger } from '../log.ts';

/** Starts the operator; returns a handle that stops it. */
export async function startOperator(_config: Config, _logger: Logger): Promise<{ stop(): Promise<void> }> {
  throw new UnavailableError('the operator is not part of this build yet');
}
