/**
 * A new webhook (POST /webhooks): URL, optional name, the events it subscribes to (svc's own list); its signing
 * secret is shown once, then its page opens.
 */
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { WEBHOOK_EVENTS } from '../../../../src/core/events.ts';
import type { CreatedWebhook } from '../../api/types.ts';
import { useCreateWebhook, type WebhookInput } from '../../api/webhooks.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../../components/ui/feedback.tsx';
import { Checkbox, Field, Input } from '../../components/ui/field.tsx';
import { ShownOnce } from '../../components/ui/shown-once.tsx';

export function WebhookCreatePage() {
  const navigate = useNavigate();
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [events, setEvents] = useState<WebhookInput['events']>(['incident.opened', 'incident.resolved']);
  const [created, setCreated] = useState<CreatedWebhook | undefined>();
  const toggle = (event: WebhookInput['events'][number], on: boolean) =>
    setEvents(on ? [...events, event] : events.filter((e) => e !== event));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url, events, ...(name ? { name } : {}) }, { onSuccess: (w) => setCreated(w) });
  };
  return (
    <div className="max-w-2xl space-y-4">
      <PageHeader title="New webhook" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="URL" hint="where svc posts; checked against the outbound policy">
          {(p) => (
            <Input
              {...p}
              required
              type="url"
              placeholder="https://hooks.example.com/svc"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          )}
        </Field>
        <Field label="Name" hint="optional; the URL's host when empty">
          {(p) => <Input {...p} maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <fieldset className="space-y-1.5">
          <legend className="mb-1 text-sm font-medium">Events</legend>
          <div className="grid gap-1.5 sm:grid-cols-2">
            {WEBHOOK_EVENTS.map((event) => (
              <Checkbox
                key={event}
                label={event}
                checked={events.includes(event)}
                onChange={(e) => toggle(event, e.target.checked)}
              />
            ))}
          </div>
        </fieldset>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create webhook
        </Button>
      </form>
      {create.error ? <ErrorState error={create.error} title="Could not create the webhook" /> : null}
      <ShownOnce
        value={created?.secret}
        title="The webhook's signing secret"
        testId="webhook-secret"
        onDone={() => created && navigate({ to: '/webhooks/$id', params: { id: created.id ?? '' } })}
      />
    </div>
  );
}
