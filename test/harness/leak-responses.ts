/**
 * API responses handed to the run's leak check (test/harness/leak-registry.ts) by the test clients. The contract has
 * svc show a few secrets exactly once, in the answer that creates them; those fields are the only legitimate places
 * and are taken out narrowly — that field, of that route's success answer — after registering the value, so the same
 * secret anywhere else (a later GET, a log, an Event) still fails the run. Credentials a test sends to svc (registry
 * password, store credentials, a cluster's kubeconfig token or key) are registered from the request
 * ({@link registerRequestSecrets}), so a test need not list them.
 */
import { parse } from 'yaml';
import { captureForLeakScan, registerSecret, registerSecretData } from './leak-registry.ts';

interface ShownOnce {
  method: string;
  path: RegExp;
  /** The field holding the secret; dots reach into nested objects (`shell.attach.token`). */
  field: string;
  label: string;
}

/** The answers that carry a freshly made secret, and its field (docs/api.md). */
const SHOWN_ONCE: ShownOnce[] = [
  // The API key's plaintext: only its hash is stored.
  { method: 'POST', path: /^\/api\/v1\/auth\/api-keys$/, field: 'key', label: 'minted API key' },
  // The webhook signing secret (sealed at rest).
  { method: 'POST', path: /^\/api\/v1\/webhooks$/, field: 'secret', label: 'webhook signing secret' },
  // The registry's notification token: at create, and at update with rotate_notification_token.
  {
    method: 'POST',
    path: /^\/api\/v1\/registries$/,
    field: 'notification_token',
    label: 'registry notification token',
  },
  {
    method: 'PATCH',
    path: /^\/api\/v1\/registries\/[^/]+$/,
    field: 'notification_token',
    label: 'registry notification token',
  },
  // A shell's attach token (a short-lived TokenRequest token that may only exec into that shell's Pod), answered
  // once to the caller who spawned it (docs/api.md "Clusters").
  {
    method: 'POST',
    path: /^\/api\/v1\/clusters\/[^/]+\/shell$/,
    field: 'shell.attach.token',
    label: 'cluster shell attach token',
  },
];

/**
 * Answers whose whole purpose is to hand over a credential, to the one caller entitled to it, and so are not captured:
 * the operator's internal channel (authenticated by SVC_OPERATOR_TOKEN, docs/api.md "internal") serves it the
 * kubeconfig of a registered cluster so it can deploy there. Success answers only: its errors are still scanned.
 */
const CREDENTIAL_ANSWERS: { method: string; path: RegExp }[] = [
  { method: 'GET', path: /^\/internal\/clusters\/[^/]+\/kubeconfig$/ },
  // …and the registry an image App names, with its password opened, so it can resolve and pull-check digests.
  { method: 'GET', path: /^\/internal\/registries\/[^/]+\/[^/]+$/ },
];

/**
 * Hands one API response to the leak check: `body` as received (text), for `method url` answered `status`. A
 * shown-once secret in a 2xx answer is registered, then replaced in what is captured; a credential answer is left out.
 */
export function captureResponse(method: string, url: string, status: number, body: string): void {
  const path = url.split('?')[0] ?? url;
  const ok = status >= 200 && status < 300;
  if (ok && CREDENTIAL_ANSWERS.some((r) => r.method === method.toUpperCase() && r.path.test(path))) return;
  let text = body;
  const rule = SHOWN_ONCE.find((r) => r.method === method.toUpperCase() && r.path.test(path));
  if (rule && ok) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const keys = rule.field.split('.');
    const last = keys.pop() as string;
    let holder: Record<string, unknown> | undefined = parsed;
    for (const k of keys) holder = holder?.[k] as Record<string, unknown> | undefined;
    const value = holder?.[last];
    if (holder && typeof value === 'string') {
      registerSecret(rule.label, value);
      holder[last] = '[shown once]';
      text = JSON.stringify(parsed);
    }
  }
  captureForLeakScan(`response ${method.toUpperCase()} ${path} ${status}`, text);
}

/** The string values of a kubeconfig's users (token, client-key-data, password); none when it does not parse. */
function kubeconfigSecrets(text: string): Record<string, string> {
  try {
    const config = parse(text) as { users?: { name?: string; user?: Record<string, unknown> }[] } | null;
    const found: Record<string, string> = {};
    for (const { name, user } of config?.users ?? []) {
      for (const field of ['token', 'client-key-data', 'password']) {
        const value = user?.[field];
        if (typeof value === 'string') found[`user ${name} ${field}`] = value;
      }
    }
    return found;
  } catch {
    return {}; // a malformed kubeconfig on purpose: svc refuses it, and there is nothing to register
  }
}

/**
 * Registers the credentials in a request body sent to svc: `password` of a registry, every `credentials` value of a
 * secret store, the user credentials of a cluster's `kubeconfig` (create and update). Values under 8 characters are
 * skipped (registerSecretData).
 */
export function registerRequestSecrets(method: string, url: string, body: unknown): void {
  if (!['POST', 'PATCH', 'PUT'].includes(method.toUpperCase()) || typeof body !== 'object' || body === null) return;
  const path = url.split('?')[0] ?? url;
  const fields = body as Record<string, unknown>;
  if (/^\/api\/v1\/registries(\/[^/]+)?$/.test(path) && typeof fields['password'] === 'string') {
    registerSecretData('registry', { password: fields['password'] });
  }
  const credentials = fields['credentials'];
  if (/^\/api\/v1\/secret-stores(\/[^/]+)?$/.test(path) && typeof credentials === 'object' && credentials) {
    const strings = Object.entries(credentials).filter((e): e is [string, string] => typeof e[1] === 'string');
    registerSecretData('secret-store credential', Object.fromEntries(strings));
  }
  if (/^\/api\/v1\/clusters(\/[^/]+)?$/.test(path) && typeof fields['kubeconfig'] === 'string') {
    registerSecretData('cluster kubeconfig', kubeconfigSecrets(fields['kubeconfig']));
  }
}
