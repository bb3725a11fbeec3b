/**
 * `svc preview --repo <url> --revision <ref>` (docs/cli.md): POST /api/v1/preview — what a ref of a repository
 * would change for every App built from it and every App an AppSet reading it would generate, change or delete
 * there, before it is merged. Prints the Markdown summary (fit for a pull-request comment: new and removed Apps
 * marked, a line per AppSet) or, with -o json|yaml, the answer. Exits like `svc app diff`: 0 nothing would change,
 * 1 something would (an App an AppSet would create or delete included), 5 when an App could not be previewed, an
 * AppSet could not be generated at the ref, or the preview could not be had (2, 3, 4 as every command).
 */
import type { Command } from 'commander';
import type { PreviewReport } from '../../client/answers.ts';
import { CliError, EXIT } from './errors.ts';
import { render } from './output.ts';
import { print, run, runtimeOf } from './runtime.ts';

/** Registers `svc preview` on `program`. */
export function registerPreviewCommands(program: Command): void {
  program
    .command('preview')
    .description(
      'what a branch, tag, commit or pull request ref would change for every app built from a repository, and the apps AppSets would generate or delete there (writes nothing)',
    )
    .requiredOption('--repo <url>', 'the Git repository URL')
    .requiredOption('--revision <ref>', 'a branch, tag, commit id or refs/pull/N/head')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ repo: string; revision: string }>();
        let report: PreviewReport;
        try {
          report = await api.POST('/api/v1/preview', { body: { repoURL: opts.repo, revision: opts.revision } });
        } catch (err) {
          // 1 means "changes" here, as for `svc app diff`: a failure other commands exit 1 for exits 5.
          if (err instanceof CliError && err.exitCode === EXIT.failed) throw new CliError(err.message, EXIT.diffFailed);
          throw err;
        }
        print(render(report, format, (r) => r.markdown.trimEnd()));
        if (report.summary.failed > 0) {
          throw new CliError(`${report.summary.failed} app(s) could not be previewed`, EXIT.diffFailed);
        }
        const sets = report.appsets.filter((s) => s.status === 'failed').map((s) => s.name);
        if (sets.length > 0) {
          throw new CliError(`AppSet(s) ${sets.join(', ')} could not be generated at the ref`, EXIT.diffFailed);
        }
        if (report.summary.changed > 0) process.exitCode = EXIT.differences;
      }),
    );
}
