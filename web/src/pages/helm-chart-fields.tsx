/**
 * The HelmChart part of the New app form: a chart picker over the org's Helm repositories (the charts of an
 * HTTP(S) repository and their versions from its index; an oci:// repository's versions once a chart is named), and
 * a version that may be a semver range (the newest match is deployed, and a new matching version by itself).
 */

import type { Dispatch, SetStateAction } from 'react';
import { useRepositories, useRepositoryCharts } from '../api/repositories.ts';
import { Field, Input, Select } from '../components/ui/field.tsx';

/** What the form holds of a HelmChart source. */
export interface HelmChartForm {
  repositoryId: string;
  chart: string;
  version: string;
}

/** The HelmChart block of the create payload for `form`, given the org's repositories. */
export function helmChartSource(form: HelmChartForm, repositories: { id?: string; name?: string; url?: string }[]) {
  const repository = repositories.find((r) => r.id === form.repositoryId);
  return {
    repoURL: repository?.url ?? '',
    chart: form.chart,
    ...(form.version ? { version: form.version } : {}),
    ...(repository?.name ? { repositoryRef: repository.name } : {}),
  };
}

export function HelmChartFields({
  form,
  onChange,
}: {
  form: HelmChartForm;
  /** The form's state setter: each change applies to the latest state (two changes between renders both stay). */
  onChange: Dispatch<SetStateAction<HelmChartForm>>;
}) {
  const repositories = useRepositories();
  const helm = (repositories.data?.repositories ?? []).filter((r) => r.type === 'helm');
  const selected = helm.find((r) => r.id === form.repositoryId);
  const oci = selected?.url?.startsWith('oci://') ?? false;
  const charts = useRepositoryCharts(form.repositoryId || undefined, oci && form.chart ? form.chart : undefined);
  const listed = charts.data?.charts ?? [];
  const versions = listed.find((c) => c.name === form.chart)?.versions ?? [];
  return (
    <>
      <Field label="Chart repository" hint="A Helm repository registered under Repositories.">
        {(p) => (
          <Select
            {...p}
            required
            value={form.repositoryId}
            onChange={(e) => onChange({ repositoryId: e.target.value, chart: '', version: '' })}
          >
            <option value="">Choose a repository</option>
            {helm.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name} ({r.url})
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Chart" hint={oci ? 'The chart name in the registry path.' : 'From the repository index.'}>
        {(p) =>
          oci || listed.length === 0 ? (
            <Input
              {...p}
              required
              value={form.chart}
              onChange={(e) => {
                const chart = e.target.value;
                onChange((f) => ({ ...f, chart }));
              }}
            />
          ) : (
            <Select
              {...p}
              required
              value={form.chart}
              onChange={(e) => {
                const chart = e.target.value;
                onChange((f) => ({ ...f, chart, version: '' }));
              }}
            >
              <option value="">Choose a chart</option>
              {listed.map((c) => (
                <option key={c.name}>{c.name}</option>
              ))}
            </Select>
          )
        }
      </Field>
      <Field
        label="Version"
        hint={`Exact or a range (1.2.x, ^1.2.0); empty: the newest.${versions.length ? ` Listed: ${versions.slice(0, 6).join(', ')}` : ''}`}
      >
        {(p) => (
          <Input
            {...p}
            list="chart-versions"
            value={form.version}
            onChange={(e) => {
              const version = e.target.value;
              onChange((f) => ({ ...f, version }));
            }}
          />
        )}
      </Field>
      <datalist id="chart-versions">
        {versions.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
    </>
  );
}
