import { useState } from 'react';
import { Button } from './button.tsx';
import { Dialog } from './dialog.tsx';
import { ErrorState } from './feedback.tsx';

/** The part of a delete mutation (TanStack Query) the dialog drives. */
export interface DeleteMutation {
  mutate: (variables: undefined, options: { onSuccess: () => void }) => void;
  isPending: boolean;
  error: unknown;
}

/**
 * A danger button opening a confirmation dialog that runs `remove`. The server's `{"error"}` (e.g. a 409 naming the
 * Apps that still use the resource) is shown in the dialog, which stays open; `onDone` runs after a success.
 */
export function ConfirmDelete({
  verb = 'Delete',
  noun,
  name,
  description,
  remove,
  onDone,
}: {
  verb?: 'Delete' | 'Remove';
  /** What is deleted, e.g. "registry": titles the dialog and its button. */
  noun: string;
  name: string;
  description: string;
  remove: DeleteMutation;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="danger" onClick={() => setOpen(true)}>
        {verb}
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title={`${verb} ${noun} ${name}?`} description={description}>
        {remove.error ? (
          <ErrorState error={remove.error} title={`Could not ${verb.toLowerCase()} the ${noun}`} />
        ) : null}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate(undefined, { onSuccess: onDone })}
          >
            {verb} {noun}
          </Button>
        </div>
      </Dialog>
    </>
  );
}
