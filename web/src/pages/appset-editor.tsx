/**
 * Writes an AppSet from text (issue 27: the UI face of `svc appset create|update -f`): YAML or JSON, the API's
 * payload or an AppSet manifest, mapped by the same rule as the CLI (src/core/appset-manifest.ts). The server
 * checks everything else and its `{"error"}` is shown as it says it; text that is not one object is refused here.
 */
import { type FormEvent, useState } from 'react';
import { parse, stringify } from 'yaml';
import type { AppSetCreate, AppSetUpdate } from '../../../src/client/answers.ts';
import { appSetPayloadOf, appSetUpdateOf } from '../../../src/core/appset-manifest.ts';
import { useCreateAppSet, useUpdateAppSet } from '../api/appsets.ts';
import type { AppSetView } from '../api/types.ts';
import { Button } from '../components/ui/button.tsx';
import { ErrorState } from '../components/ui/feedback.tsx';
import { Field, Textarea } from '../components/ui/field.tsx';

/** What a new AppSet's text box starts with: a manifest of one list generator to edit. */
const EXAMPLE = `apiVersion: cd.svc.space/v1alpha1
kind: AppSet
metadata:
  name: web
spec:
  generators:
    - list:
        elements:
          - env: staging
          - env: prod
  template:
    metadata:
      name: web-{{ env }}
    spec:
      source:
        type: Git
        git: { repoURL: https://git.example.com/web.git, path: deploy }
      destination:
        namespace: web-{{ env }}
      syncPolicy: { automated: true }
`;

/** The editable text of an existing AppSet: what PUT replaces (generators, template, sync policy). */
function textOf(set: AppSetView): string {
  return stringify({ generators: set.generators, template: set.template, sync_policy: set.sync_policy });
}

/** The one object `text` holds, or why it does not hold one. */
function documentOf(text: string): { doc: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (err) {
    return { problem: `not YAML or JSON: ${(err as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problem: 'the text must hold one object' };
  return { doc: parsed as Record<string, unknown> };
}

/** The text box and its submit: creates an AppSet, or (with `set`) replaces that one's spec. */
export function AppSetEditor({ set, onDone }: { set?: AppSetView; onDone: () => void }) {
  const [text, setText] = useState(() => (set ? textOf(set) : EXAMPLE));
  const [problem, setProblem] = useState<string | undefined>();
  const create = useCreateAppSet();
  const update = useUpdateAppSet(set?.name ?? '');
  const write = set ? update : create;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const read = documentOf(text);
    if ('problem' in read) return setProblem(read.problem);
    if (!set) {
      setProblem(undefined);
      return create.mutate(appSetPayloadOf(read.doc) as AppSetCreate, { onSuccess: onDone });
    }
    const body = appSetUpdateOf(read.doc, set.name);
    if ('problem' in body) return setProblem(body.problem);
    setProblem(undefined);
    update.mutate(body.body as AppSetUpdate, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} className="space-y-3" aria-label={set ? `Edit ${set.name}` : 'New AppSet'}>
      <Field
        label="AppSet"
        hint="YAML or JSON: an AppSet manifest or the API's payload (name, generators, template, sync_policy)"
        error={problem}
      >
        {(p) => (
          <Textarea
            {...p}
            rows={18}
            spellCheck={false}
            autoComplete="off"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        )}
      </Field>
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={write.isPending}>
          {set ? 'Save AppSet' : 'Create AppSet'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
      {write.error ? (
        <ErrorState error={write.error} title={set ? 'Could not save the AppSet' : 'Could not create the AppSet'} />
      ) : null}
    </form>
  );
}
