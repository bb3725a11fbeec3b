/**
 * The contract of delivery windows (docs/operator.md "Delivery windows"): the org's windows (GET/PUT
 * /delivery-windows), a cluster's (GET/PUT /clusters/{name}/windows) and whether an App's windows let a sync run now
 * (GET /apps/{ns}/{name}/windows). An App's own windows are part of the App (spec.syncPolicy.windows).
 */
import { Type } from 'typebox';
import { DeliveryWindowSchema } from '../../core/windows-schema.ts';
import { AppParams } from '../apps/contract.ts';
import { ClusterParams } from '../clusters/contract.ts';
import { errors } from '../contract/errors.ts';
import { component, Nullable, ref, withoutDefaults } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;
const tags = ['delivery-windows'];

export const DeliveryWindow = component('DeliveryWindow', withoutDefaults(DeliveryWindowSchema));

export const DeliveryWindows = component(
  'DeliveryWindows',
  Type.Object({ windows: Type.Array(ref(DeliveryWindow), { maxItems: 16 }) }, closed),
);

export const SourcedDeliveryWindow = component(
  'SourcedDeliveryWindow',
  Type.Object(
    {
      name: Type.String(),
      kind: Type.String({ description: 'allow or deny' }),
      schedule: Type.String(),
      duration: Type.String(),
      time_zone: Type.String(),
      source: Type.String({ description: 'where the window is defined: app, cluster or org' }),
    },
    { ...closed, description: 'a delivery window and where it comes from' },
  ),
);

export const AppWindows = component(
  'AppWindows',
  Type.Object(
    {
      open: Type.Boolean({ description: 'whether a sync may run now' }),
      reason: Type.String({ description: 'empty when open; deny (inside a deny window) or outside-allow' }),
      message: Type.String({ description: 'names the blocking window; empty when open' }),
      window: Nullable(ref(SourcedDeliveryWindow), { description: 'the blocking window; null when open' }),
      changes_at: Nullable(Type.String({ description: 'RFC 3339: when the verdict may change (the window opens)' })),
      active: Type.Array(ref(SourcedDeliveryWindow), { description: 'allow windows open now' }),
      windows: Type.Array(ref(SourcedDeliveryWindow), {
        description: "every window: the App's, its cluster's, its org's",
      }),
    },
    closed,
  ),
);

const BAD_WINDOWS = 'a window that cannot be evaluated (schedule, duration or time zone), or a name used twice';

export const getOrgWindowsRoute = {
  tags,
  summary: "The org's delivery windows (deployment:read at org scope)",
  response: { 200: ref(DeliveryWindows), ...errors() },
};

export const putOrgWindowsRoute = {
  tags,
  summary: "Set the org's delivery windows, [] for none (org:manage; audited org.delivery_windows)",
  body: ref(DeliveryWindows),
  response: { 200: ref(DeliveryWindows), ...errors({ 422: BAD_WINDOWS }) },
};

export const getClusterWindowsRoute = {
  tags,
  summary: "A cluster's delivery windows, which apply to every App deploying there (cluster:read)",
  params: ClusterParams,
  response: { 200: ref(DeliveryWindows), ...errors({ 404: 'cluster not found' }) },
};

export const putClusterWindowsRoute = {
  tags,
  summary: "Set a cluster's delivery windows, [] for none (cluster:manage; audited cluster.delivery_windows)",
  params: ClusterParams,
  body: ref(DeliveryWindows),
  response: { 200: ref(DeliveryWindows), ...errors({ 404: 'cluster not found', 422: BAD_WINDOWS }) },
};

export const appWindowsRoute = {
  tags: ['apps'],
  summary:
    "Whether the App's delivery windows (its own, its cluster's, its org's) let a sync run now, and which window blocks (deployment:read)",
  params: AppParams,
  response: { 200: ref(AppWindows), ...errors({ 404: 'app not found' }) },
};

export const DELIVERY_WINDOW_COMPONENTS = [DeliveryWindow, DeliveryWindows, SourcedDeliveryWindow, AppWindows];
