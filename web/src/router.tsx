/**
 * Every view has a URL (deep links): filters of the list and the tab of an App page live in the search params.
 * Code-defined routes; the heavier pages load when first visited.
 */

import { createRootRoute, createRoute, createRouter, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { Layout, NotFound } from './components/layout.tsx';
import { APP_TABS, type AppTab } from './pages/app/tabs.ts';
import { AppListPage } from './pages/app-list.tsx';

// The router parses search values as JSON where it can (`?q=123` is a number): text filters take either.
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

export interface ListSearch {
  q?: string | undefined;
  sync?: string | undefined;
  health?: string | undefined;
  cluster?: string | undefined;
  namespace?: string | undefined;
  sort?: string | undefined;
}

/** Filters of the incident list (GET /incidents): state, App name, cause. */
export interface IncidentSearch {
  state?: 'open' | 'resolved' | undefined;
  app?: string | undefined;
  cause?: string | undefined;
}

export interface AppSearch {
  tab?: AppTab | undefined;
  pod?: string | undefined;
  container?: string | undefined;
}

const rootRoute = createRootRoute({ component: Layout, notFoundComponent: NotFound });

const index = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/apps' });
  },
});

const routes = [
  index,
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sign-in',
    validateSearch: (s: Record<string, unknown>): { redirect?: string | undefined } => ({
      redirect: str(s['redirect']),
    }),
    component: lazyRouteComponent(() => import('./pages/auth.tsx'), 'SignInPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sign-up',
    component: lazyRouteComponent(() => import('./pages/auth.tsx'), 'SignUpPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/orgs/new',
    component: lazyRouteComponent(() => import('./pages/orgs.tsx'), 'OrgCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/settings/members',
    component: lazyRouteComponent(() => import('./pages/orgs.tsx'), 'MembersPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/apps',
    validateSearch: (s: Record<string, unknown>): ListSearch => ({
      q: str(s['q']),
      sync: str(s['sync']),
      health: str(s['health']),
      cluster: str(s['cluster']),
      namespace: str(s['namespace']),
      sort: str(s['sort']),
    }),
    component: AppListPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/apps/graph',
    component: lazyRouteComponent(() => import('./pages/app-graph.tsx'), 'AppGraphPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/apps/new',
    validateSearch: (s: Record<string, unknown>): { clone?: string | undefined } => ({ clone: str(s['clone']) }),
    component: lazyRouteComponent(() => import('./pages/app-create.tsx'), 'AppCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/apps/$namespace/$name',
    validateSearch: (s: Record<string, unknown>): AppSearch => ({
      tab: APP_TABS.includes(s['tab'] as AppTab) ? (s['tab'] as AppTab) : undefined,
      pod: str(s['pod']),
      container: str(s['container']),
    }),
    component: lazyRouteComponent(() => import('./pages/app-detail.tsx'), 'AppDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/clusters',
    component: lazyRouteComponent(() => import('./pages/clusters/list.tsx'), 'ClusterListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/clusters/new',
    component: lazyRouteComponent(() => import('./pages/clusters/register.tsx'), 'ClusterRegisterPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/clusters/$name',
    component: lazyRouteComponent(() => import('./pages/clusters/detail.tsx'), 'ClusterDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/secret-stores',
    component: lazyRouteComponent(() => import('./pages/secret-stores/list.tsx'), 'SecretStoreListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/secret-stores/new',
    component: lazyRouteComponent(() => import('./pages/secret-stores/create.tsx'), 'SecretStoreCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/secret-stores/$id',
    component: lazyRouteComponent(() => import('./pages/secret-stores/detail.tsx'), 'SecretStoreDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/registries',
    component: lazyRouteComponent(() => import('./pages/registries/list.tsx'), 'RegistryListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/registries/new',
    component: lazyRouteComponent(() => import('./pages/registries/create.tsx'), 'RegistryCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/registries/$id',
    component: lazyRouteComponent(() => import('./pages/registries/detail.tsx'), 'RegistryDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/appsets',
    component: lazyRouteComponent(() => import('./pages/appsets.tsx'), 'AppSetsPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/import',
    component: lazyRouteComponent(() => import('./pages/import.tsx'), 'ImportPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/delivery-windows',
    component: lazyRouteComponent(() => import('./pages/delivery-windows.tsx'), 'DeliveryWindowsPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/catalog',
    component: lazyRouteComponent(() => import('./pages/catalog.tsx'), 'CatalogPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/health-checks',
    component: lazyRouteComponent(() => import('./pages/health-checks.tsx'), 'HealthChecksPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/repositories',
    component: lazyRouteComponent(() => import('./pages/repositories/list.tsx'), 'RepositoryListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/repositories/new',
    component: lazyRouteComponent(() => import('./pages/repositories/create.tsx'), 'RepositoryCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/repositories/$id',
    component: lazyRouteComponent(() => import('./pages/repositories/detail.tsx'), 'RepositoryDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/teams',
    component: lazyRouteComponent(() => import('./pages/teams/list.tsx'), 'TeamListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/teams/$id',
    component: lazyRouteComponent(() => import('./pages/teams/detail.tsx'), 'TeamDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/webhooks',
    component: lazyRouteComponent(() => import('./pages/webhooks/list.tsx'), 'WebhookListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/webhooks/new',
    component: lazyRouteComponent(() => import('./pages/webhooks/create.tsx'), 'WebhookCreatePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/webhooks/$id',
    component: lazyRouteComponent(() => import('./pages/webhooks/detail.tsx'), 'WebhookDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/incidents',
    validateSearch: (s: Record<string, unknown>): IncidentSearch => ({
      state: s['state'] === 'open' || s['state'] === 'resolved' ? s['state'] : undefined,
      app: str(s['app']),
      cause: str(s['cause']),
    }),
    component: lazyRouteComponent(() => import('./pages/incidents/list.tsx'), 'IncidentListPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/incidents/$id',
    component: lazyRouteComponent(() => import('./pages/incidents/detail.tsx'), 'IncidentDetailPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/settings/api-keys',
    component: lazyRouteComponent(() => import('./pages/api-keys.tsx'), 'ApiKeysPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/settings/audit',
    validateSearch: (s: Record<string, unknown>): { offset?: number | undefined } => ({
      offset: Number.isInteger(Number(s['offset'])) && Number(s['offset']) > 0 ? Number(s['offset']) : undefined,
    }),
    component: lazyRouteComponent(() => import('./pages/audit.tsx'), 'AuditPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/settings/access',
    component: lazyRouteComponent(() => import('./pages/access.tsx'), 'AccessPage'),
  }),
];

export const router = createRouter({ routeTree: rootRoute.addChildren(routes), defaultPreload: 'intent' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
