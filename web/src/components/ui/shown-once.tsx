import { useState } from 'react';
import { Button } from './button.tsx';
import { Dialog } from './dialog.tsx';

/**
 * A secret the server answers once (an API key, a webhook's signing secret, a registry's notification token) in a
 * dialog with a copy button; `value` undefined = closed. Closing forgets it: it is never shown again.
 */
export function ShownOnce({
  value,
  title,
  onDone,
  testId,
}: {
  value: string | undefined;
  title: string;
  onDone: () => void;
  testId: string;
}) {
  const [copied, setCopied] = useState(false);
  const done = () => {
    setCopied(false);
    onDone();
  };
  return (
    <Dialog
      open={value !== undefined}
      onOpenChange={(o) => (o ? null : done())}
      title={title}
      description="Copy it now: it is shown this once and never again."
    >
      <output
        className="block rounded bg-zinc-100 p-2 font-mono text-sm break-all dark:bg-zinc-800"
        data-testid={testId}
      >
        {value}
      </output>
      <div className="mt-3 flex items-center justify-end gap-2">
        {copied ? <span className="text-sm text-emerald-700">Copied.</span> : null}
        <Button
          onClick={() =>
            void navigator.clipboard?.writeText(value ?? '').then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy
        </Button>
        <Button variant="primary" onClick={done}>
          Done
        </Button>
      </div>
    </Dialog>
  );
}
