/**
 * The App use-cases of the API (contract §4.2): list, read, create, clone, preview, delete, freeze and unfreeze.
 * Each is authorize (canI) → act (the management cluster's App client) → audit; routes only parse and present.
 * Apps are App resources in the org's namespace `org-<slug>`; nothing about them is stored in the database.
 */
import { canAnywhere } from '../../auth/rbac.ts';
import type { AppResource, AppSpec } from '../../core/app-schema.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { validateAppChecks } from '../../engine/health/custom.ts';
import { checkOutboundURL, type OutboundPolicy } from '../../net/outbound.ts';
import { RegistryError } from '../../registry/index.ts';
import type { Actor } from '../actor.ts';
import type { ApiServices } from '../services.ts';
import { AppAccess } from './access.ts';
import { type ListPage, type ListQuery, pageOf, parseListQuery } from './list-query.ts';
import { type AppRef, scopeFilter, scopeOfApp } from './scope.ts';

/** What a preview resolves (contract §4.2 rule 13). */
export interface PreviewResult {
  valid: boolean;
  /** Why the image could not be resolved (with `valid: false`). */
  error?: string;
  error_class?: string;
  resolved: { image: string; tag: string; digest: string; ref: string };
  spec: AppSpec;
  current?: Omit<AppSpec, 'operation'>;
}

/** The App use-cases that are not operations or observations. */
export class AppService {
  readonly #access: AppAccess;
  readonly #services: ApiServices;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#access = new AppAccess(services);
  }

  /**
   * The org's Apps the caller may read, sorted by name, as app-object JSON serialized once per resourceVersion
   * (see KubeApps.listEntries). 403 for callers holding `deployment:read` nowhere.
   */
  async listJson(actor: Actor): Promise<Buffer[]> {
    return (await this.listPage(actor, parseListQuery({}))).items;
  }

  /**
   * The page of the org's Apps the caller may read that `query` asks for (filters, sort, cursor: see
   * list-query.ts), as app-object JSON, with the App cache's resourceVersion the page is as of. 403 for callers
   * holding `deployment:read` nowhere.
   */
  async listPage(actor: Actor, query: ListQuery): Promise<ListPage<Buffer> & { resourceVersion: string }> {
    const kube = this.#access.kube();
    if (!canAnywhere(actor.caller, 'deployment:read')) throw new ForbiddenError('missing permission deployment:read');
    // Read before the entries: every change after it is newer, so a stream resumed from it misses none.
    const resourceVersion = kube.version ?? '';
    const entries = await kube.listEntries(orgNamespace(actor.org.slug));
    const readable = scopeFilter(actor, 'deployment:read');
    const page = pageOf(
      query,
      entries.filter((e) => readable(scopeOfApp(e.app))),
    );
    return { ...page, items: page.items.map((e) => e.json), resourceVersion };
  }

  /** One App (`deployment:read`). */
  get(actor: Actor, ref: AppRef): Promise<AppResource> {
    return this.#access.load(actor, ref, 'deployment:read');
  }

  /**
   * Creates an App from a create payload (400 on bad input, including a notification URL the outbound policy
   * refuses; 409 on a taken name); audited `app.create`.
   */
  create(actor: Actor, body: unknown): Promise<AppResource> {
    const parsed = parseCreateRequest(body);
    checkNotificationURLs(parsed.spec, this.#access.services.config.outbound);
    validateAppChecks(parsed.spec.health?.checks);
    return this.#access.create(actor, parsed, 'app.create', { source_type: parsed.spec.source.type });
  }

  /**
   * Copies source, sync policy and destination (namespace unless `body.namespace`) of an App the caller may read
   * onto a new App `body.name`, which starts unsynced; audited `app.clone`.
   */
  async clone(actor: Actor, ref: AppRef, body: { name: string; namespace?: string }): Promise<AppResource> {
    const from = await this.#access.load(actor, ref, 'deployment:read');
    const payload: Record<string, unknown> = {
      name: body.name,
      namespace: body.namespace ?? from.spec.destination.namespace,
      cluster: from.spec.destination.cluster ?? '',
      source: from.spec.source,
    };
    if (from.spec.syncPolicy) payload['sync_policy'] = from.spec.syncPolicy;
    const parsed = parseCreateRequest(payload);
    return this.#access.create(actor, parsed, 'app.clone', {
      from: `${from.spec.destination.namespace}/${from.metadata.name}`,
    });
  }

  /**
   * Validates a create payload exactly as create does and resolves its source without writing anything: for an
   * image source the digest its tag points at now (`valid: false` with the registry's error when it cannot be
   * resolved), for Git the branch ref. With `currentApp`, the spec of that App is added for a client-side diff
   * (400 when it does not exist).
   */
  async preview(actor: Actor, body: unknown, currentApp: string | undefined): Promise<PreviewResult> {
    this.#access.kube();
    const parsed = parseCreateRequest(body);
    await this.#access.authorizeDestination(actor, 'deployment:manage', parsed.cluster, parsed.namespace);
    await this.#access.checkRegistryRef(actor, parsed.spec);
    const git = parsed.spec.source.git;
    const ref = git ? `refs/heads/${git.branch ?? 'main'}` : '';
    const answer: PreviewResult = { valid: true, resolved: { image: '', tag: '', digest: '', ref }, spec: parsed.spec };
    const image = parsed.spec.source.image;
    if (image) {
      const location = await this.#services.images.locate(actor.org.id, image);
      answer.resolved = { image: location.name, tag: image.tag, digest: '', ref: '' };
      try {
        const digest = await this.#services.images.client.resolve(location.endpoint, location.path, image.tag);
        answer.resolved = { ...answer.resolved, digest, ref: `${location.name}@${digest}` };
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        Object.assign(answer, { valid: false, error: err.message, error_class: err.errorClass });
      }
    }
    if (currentApp !== undefined) {
      const existing = await this.#access.find(actor, currentApp);
      if (!existing) throw new InputError(`app "${currentApp}" not found`);
      const { operation: _op, ...spec } = existing.spec;
      answer.current = spec;
    }
    return answer;
  }

  /** Deletes an App (`deployment:manage`); audited `app.delete`. What it applied is the operator's business. */
  async delete(actor: Actor, ref: AppRef): Promise<AppResource> {
    const app = await this.#access.load(actor, ref, 'deployment:manage');
    await this.#access.kube().delete(orgNamespace(actor.org.slug), app.metadata.name);
    await this.#access.audit(actor, 'app.delete', app);
    return app;
  }

  /** Sets or clears `spec.freeze` (`deployment:manage`); audited `app.freeze` / `app.unfreeze`. */
  async setFrozen(actor: Actor, ref: AppRef, frozen: boolean): Promise<AppResource> {
    const app = await this.#access.load(actor, ref, 'deployment:manage');
    await this.#access.kube().mergePatch(orgNamespace(actor.org.slug), app.metadata.name, { spec: { freeze: frozen } });
    await this.#access.audit(actor, frozen ? 'app.freeze' : 'app.unfreeze', app);
    return app;
  }
}

/**
 * Refuses (400) notification URLs the outbound policy would refuse anyway (scheme, credentials in the URL, an
 * address literal outside SVC_OUTBOUND_SCOPE), so a mistake shows at create time rather than as failed deliveries.
 * Host names are checked again by the operator each time it connects.
 */
function checkNotificationURLs(spec: AppSpec, policy: OutboundPolicy): void {
  const n = spec.notifications;
  const urls = [n?.chat?.webhookURL, n?.slack?.webhookURL, n?.msTeams?.webhookURL, n?.webhook?.url];
  for (const url of urls) if (url !== undefined) checkOutboundURL(url, policy);
}
