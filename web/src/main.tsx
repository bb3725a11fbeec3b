import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { type AppFilters, appPagesQuery } from './api/apps.ts';
import { ApiError } from './api/client.ts';
import { applyTheme, storedTheme } from './lib/theme.ts';
import { router } from './router.tsx';
import './styles.css';

applyTheme(storedTheme());

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx answer will not change by asking again.
      retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

// The list is what most visits open: ask for its first page now, beside the session, instead of after it.
if (location.pathname === '/apps') {
  const params = new URLSearchParams(location.search);
  const filters: AppFilters = {};
  for (const k of ['q', 'sync', 'health', 'cluster', 'namespace', 'sort'] as const) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  void queryClient.prefetchInfiniteQuery(appPagesQuery(filters));
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
