/** The tabs of an App's page, in order; the URL's `tab` search parameter names one. */
export const APP_TABS = ['tree', 'list', 'history', 'diff', 'events', 'logs'] as const;
export type AppTab = (typeof APP_TABS)[number];
