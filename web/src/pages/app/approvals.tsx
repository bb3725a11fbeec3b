/** Who approved the App's held sync, how many approvals it still needs and who may give them (approval policy). */
import { useApprovals } from '../../api/apps.ts';

export function Approvals({ namespace, name }: { namespace: string; name: string }) {
  const approvals = useApprovals(namespace, name);
  const a = approvals.data;
  if (!a?.held) return null;
  return (
    <section
      aria-label="Approvals"
      className="rounded-md border border-violet-300 bg-violet-50 px-3 py-2 text-sm dark:border-violet-900 dark:bg-violet-950"
    >
      <p>
        Approvals: {a.approved_by.length} of {a.required}
        {a.approved_by.length > 0 ? ` — approved by ${a.approved_by.map((x) => x.email).join(', ')}` : ''}
      </p>
      <p>
        May approve: {a.may_approve} ({a.policy_source} policy; never the requester)
        {a.expires_at ? ` · expires ${a.expires_at}` : ''}
      </p>
    </section>
  );
}
