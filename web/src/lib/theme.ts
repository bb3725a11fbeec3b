/** Light, dark or the system's choice; kept in localStorage and applied as the `dark` class on <html>. */
export type Theme = 'light' | 'dark' | 'system';

const KEY = 'svc.theme';

export function storedTheme(): Theme {
  const t = localStorage.getItem(KEY);
  return t === 'light' || t === 'dark' ? t : 'system';
}

/** Applies and remembers a theme. */
export function applyTheme(theme: Theme): void {
  if (theme === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, theme);
  const dark = theme === 'dark' || (theme === 'system' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.classList.toggle('dark', dark);
}
