/**
 * What every client command needs, from its parsed command line: the API client for the chosen target, the output
 * format, and one way to end (print the result to stdout; report a CliError's message alone on stderr and exit
 * with its code; never a stack trace).
 */
import type { Command } from 'commander';
import { parseDuration } from '../../core/duration.ts';
import { type ApiClient, apiClient } from './api.ts';
import { configPath, readConfig, resolveTarget, type Target } from './contexts.ts';
import { CliError, EXIT } from './errors.ts';
import { type OutputFormat, parseOutputFormat } from './output.ts';

/** The options every client command accepts (declared on the root command). */
export interface GlobalFlags {
  server?: string;
  context?: string;
  output?: string;
}

/** A command's context. */
export interface Runtime {
  api: ApiClient;
  target: Target;
  format: OutputFormat;
}

/** The runtime of `cmd` from its options and the root's (`--server`, `--context`, `-o`), the environment and the config file. */
export function runtimeOf(cmd: Command, env: NodeJS.ProcessEnv = process.env): Runtime {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const target = resolveTarget(readConfig(configPath(env)), flags, env);
  return { api: apiClient(target.server, target.apiKey), target, format: parseOutputFormat(flags.output) };
}

/** Writes `text` to stdout. */
export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A duration option (`--timeout 5m`) as milliseconds; CliError (usage) when malformed. */
export function durationOption(name: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new CliError(`${name} must be a duration such as 90s or 5m`, EXIT.usage);
  return ms;
}

/** Reports a failure on stderr (the message only) and sets the exit code. */
export function report(err: unknown): void {
  if (err instanceof CliError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = err.exitCode;
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = EXIT.failed;
}

/**
 * A command action that ends every failure as `report` says. `fn` gets the command (commander passes it last), from
 * which it reads its arguments (`cmd.processedArgs`) and options (`cmd.opts()`).
 */
export function run(fn: (cmd: Command) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    try {
      await fn(args[args.length - 1] as Command);
    } catch (err) {
      report(err);
    }
  };
}

/** The command's positional arguments as strings (commander's processed values). */
export function argsOf(cmd: Command): string[] {
  return cmd.processedArgs as string[];
}
