import type { ReactNode } from 'react';

/** A definition list of a resource's facts (label → value); empty values show as a dash. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid max-w-4xl grid-cols-[max-content_1fr] gap-x-6 gap-y-1.5 text-sm">
      {items.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-zinc-500">{label}</dt>
          <dd className="break-words">{value === '' || value === null || value === undefined ? '—' : value}</dd>
        </div>
      ))}
    </dl>
  );
}
