/**
 * The frame of every page: header (navigation, org switcher, live indicator, theme, sign out) and the guard that
 * sends signed-out visitors to sign-in and org-less users to create an org.
 */
import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { Moon, Sun } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useAppFeed } from '../api/live.ts';
import { useOrgs, useSession, useSetActiveOrg, useSignOut } from '../api/session.ts';
import { cn } from '../lib/cn.ts';
import { applyTheme } from '../lib/theme.ts';
import { Button } from './ui/button.tsx';
import { ErrorState, Spinner } from './ui/feedback.tsx';

const PUBLIC = ['/sign-in', '/sign-up'];

const NAV = [
  { to: '/apps', label: 'Apps' },
  { to: '/appsets', label: 'AppSets' },
  { to: '/catalog', label: 'Catalog' },
  { to: '/clusters', label: 'Clusters' },
  { to: '/secret-stores', label: 'Secret stores' },
  { to: '/registries', label: 'Registries' },
  { to: '/health-checks', label: 'Health checks' },
  { to: '/delivery-windows', label: 'Delivery windows' },
  { to: '/repositories', label: 'Repositories' },
  { to: '/incidents', label: 'Incidents' },
  { to: '/import', label: 'Import' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/teams', label: 'Teams' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/settings/audit', label: 'Audit log' },
  { to: '/settings/access', label: 'Access' },
  { to: '/settings/members', label: 'Members' },
] as const;

function ThemeToggle() {
  const [dark, setDark] = useState(() => document.documentElement.classList.contains('dark'));
  return (
    <Button
      variant="ghost"
      size="sm"
      aria-label={dark ? 'Switch to light theme' : 'Switch to dark theme'}
      onClick={() => {
        applyTheme(dark ? 'light' : 'dark');
        setDark(!dark);
      }}
    >
      {dark ? <Sun className="size-4" aria-hidden /> : <Moon className="size-4" aria-hidden />}
    </Button>
  );
}

function OrgSwitcher({ active }: { active: string | null | undefined }) {
  const orgs = useOrgs();
  const setActive = useSetActiveOrg();
  const navigate = useNavigate();
  if (!orgs.data) return null;
  return (
    <select
      aria-label="Organization"
      className="h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      value={active ?? ''}
      onChange={(e) => {
        if (e.target.value === '__new') void navigate({ to: '/orgs/new' });
        else setActive.mutate(e.target.value, { onSuccess: () => navigate({ to: '/apps' }) });
      }}
    >
      {!active ? <option value="">Choose an organization</option> : null}
      {orgs.data.map((o) => (
        <option key={o.id} value={o.id}>
          {o.name}
        </option>
      ))}
      <option value="__new">+ New organization…</option>
    </select>
  );
}

function LiveDot({ state }: { state: string }) {
  return (
    <span className="flex items-center gap-1.5 text-xs text-zinc-500" data-live={state} role="status">
      <span
        aria-hidden
        className={cn(
          'size-2 rounded-full',
          state === 'live' ? 'bg-emerald-500' : state === 'offline' ? 'bg-red-500' : 'bg-amber-400',
        )}
      />
      {state === 'live' ? 'Live' : state === 'offline' ? 'Offline' : 'Connecting'}
    </span>
  );
}

export function Layout() {
  const path = useRouterState({ select: (s) => s.location.pathname });
  const href = useRouterState({ select: (s) => s.location.href });
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const isPublic = PUBLIC.includes(path);
  const signedIn = Boolean(session.data);
  const activeOrg = session.data?.session.activeOrganizationId;
  const feed = useAppFeed(signedIn && Boolean(activeOrg) && !isPublic, activeOrg);
  const needsOrg = signedIn && !activeOrg && !isPublic && path !== '/orgs/new';
  const orgs = useOrgs(needsOrg);
  const setActive = useSetActiveOrg();
  const { mutate: activate, isPending: activating, isError: activateFailed } = setActive;

  useEffect(() => {
    if (session.isPending || session.isError) return;
    if (!signedIn && !isPublic) void navigate({ to: '/sign-in', search: { redirect: href }, replace: true });
    else if (needsOrg && !activating) {
      // A new session has no active org: a member of exactly one goes on to it (and the page asked for); only
      // someone with none (or several, who chooses in the switcher) is sent to create one.
      if (orgs.isPending) return;
      const only = orgs.data?.length === 1 ? orgs.data[0] : undefined;
      if (only && !activateFailed) activate(only.id);
      else void navigate({ to: '/orgs/new', replace: true });
    }
  }, [
    session.isPending,
    session.isError,
    signedIn,
    isPublic,
    needsOrg,
    activating,
    activateFailed,
    activate,
    orgs.isPending,
    orgs.data,
    href,
    navigate,
  ]);

  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
        Skip to content
      </a>
      <header className="border-b border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-3 px-4 py-2">
          <Link to="/apps" className="font-semibold text-zinc-900 no-underline dark:text-zinc-100">
            svc
          </Link>
          {signedIn && activeOrg ? (
            <nav aria-label="Main" className="flex flex-wrap gap-1">
              {NAV.map((n) => (
                <Link
                  key={n.to}
                  to={n.to}
                  className="rounded px-2 py-1 text-sm text-zinc-700 no-underline hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800"
                  activeProps={{ className: 'bg-zinc-200 font-medium dark:bg-zinc-800', 'aria-current': 'page' }}
                >
                  {n.label}
                </Link>
              ))}
            </nav>
          ) : null}
          <div className="ml-auto flex items-center gap-2">
            {signedIn && activeOrg && !isPublic ? <LiveDot state={feed} /> : null}
            {signedIn ? <OrgSwitcher active={activeOrg} /> : null}
            <ThemeToggle />
            {signedIn ? (
              <Button
                variant="ghost"
                size="sm"
                onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate({ to: '/sign-in' }) })}
              >
                Sign out
              </Button>
            ) : null}
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-7xl px-4 py-5">
        {session.isError ? (
          <ErrorState error={session.error} title="Cannot reach svc" />
        ) : session.isPending ? (
          <Spinner />
        ) : !isPublic && (!signedIn || (!activeOrg && path !== '/orgs/new')) ? (
          <Spinner label="Redirecting" />
        ) : (
          <Outlet />
        )}
      </main>
    </div>
  );
}

export function NotFound() {
  return (
    <div className="space-y-2">
      <h1 className="text-xl font-semibold">Page not found</h1>
      <Link to="/apps">Go to the apps</Link>
    </div>
  );
}
