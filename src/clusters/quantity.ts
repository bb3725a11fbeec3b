/**
 * Kubernetes resource quantities (`100m`, `1.5`, `128Mi`, `2G`, `1e3`) as plain numbers: CPU in cores, memory in
 * bytes. Enough for utilisation percentages; not for round-tripping quantities.
 */

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** The value of a quantity string; 0 for anything that is not one (a missing or malformed value counts nothing). */
export function parseQuantity(text: unknown): number {
  if (typeof text !== 'string') return 0;
  const m = QUANTITY.exec(text.trim());
  if (!m) return 0;
  const value = Number(m[1]);
  if (m[2]) return value * 10 ** Number(m[2].slice(1));
  return value * (SUFFIX[m[3] ?? ''] ?? 1);
}
