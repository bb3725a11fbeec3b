/** The route schemas of adoption (contract §4.2 rule 14). */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import { ClusterName, component, DnsLabel, ref, StringEnum } from '../contract/schema.ts';
import { App } from './contract.ts';

const tags = ['apps'];
const closed = { additionalProperties: false } as const;
const Cluster = ClusterName('a registered cluster (422 when it is not); empty or absent = the management cluster');

export const AdoptableWorkload = component(
  'AdoptableWorkload',
  Type.Object(
    {
      kind: Type.String(),
      name: Type.String(),
      namespace: Type.String(),
      cluster: Type.String(),
      replicas: Type.Integer(),
      images: Type.Array(Type.String()),
      adoptable: Type.Boolean(),
      reason: Type.String({ description: 'why it cannot be adopted; empty when it can' }),
    },
    closed,
  ),
);

export const AdoptRequest = component(
  'AdoptRequest',
  Type.Object(
    {
      cluster: Type.Optional(Cluster),
      namespace: DnsLabel(),
      name: DnsLabel('the workload, and the App made of it'),
      kind: StringEnum(['Deployment', 'StatefulSet'] as const),
    },
    closed,
  ),
);

export const adoptableRoute = {
  tags,
  summary: 'Unmanaged Deployments and StatefulSets in a namespace (deployment:read there)',
  querystring: Type.Object({ cluster: Type.Optional(Cluster), namespace: DnsLabel() }, closed),
  response: {
    200: Type.Object({ workloads: Type.Array(ref(AdoptableWorkload)) }, closed),
    ...errors(422, { 502: 'the cluster answered with an error' }),
  },
};

export const adoptRoute = {
  tags,
  summary:
    'Take a Deployment over as an image-source App created with a Sync operation (deployment:manage there; audited app.adopt); 404 when no such unmanaged workload, 409 when it cannot be adopted (selector other than the rendered labels, not one container named after it, a StatefulSet) or the App name is taken',
  body: ref(AdoptRequest),
  response: {
    201: ref(App),
    ...errors(
      { 404: 'no such unmanaged workload', 409: 'the workload cannot be adopted, or the App name is taken' },
      422,
      { 502: 'the cluster answered with an error' },
    ),
  },
};

export const ADOPT_COMPONENTS = [AdoptableWorkload, AdoptRequest];
