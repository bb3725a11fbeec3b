import type { ReactNode } from 'react';
import { ApiError } from '../../api/client.ts';

/** The readable form of any failure: the server's own `{"error"}` message, with what the status means. */
export function ErrorState({ error, title }: { error: unknown; title?: string }) {
  const status = error instanceof ApiError ? error.status : undefined;
  const meaning: Record<number, string> = {
    401: 'You are signed out.',
    403: 'You are not allowed to do this.',
    404: 'Not found.',
    409: 'Conflict.',
    503: 'The service is not ready.',
  };
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      <p className="font-medium">
        {title ?? (status ? (meaning[status] ?? `Error ${status}`) : 'Something went wrong')}
      </p>
      <p className="mt-1 break-words">{message}</p>
    </div>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <span role="status" className="inline-flex items-center gap-2 text-sm text-zinc-500">
      <span className="size-3 animate-spin rounded-full border-2 border-zinc-300 border-t-sky-600" aria-hidden />
      {label}…
    </span>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700">
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-2 text-sm text-zinc-500">{children}</div> : null}
    </div>
  );
}

/** A page's title row. */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
      <h1 className="text-xl font-semibold">{title}</h1>
      <div className="flex flex-wrap items-center gap-2">{children}</div>
    </div>
  );
}
