/**
 * Image lookups the server makes for an org (preview, promote, the tag poller): locate an image source through the
 * org's registries (`registryRef`), resolve its tag, check a digest. The one registry client of the server; the
 * operator has its own instance of the same client.
 */
import type { ImageSource } from '../../core/app-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import { type ImageLocation, locateImage, type RegistryClient } from '../../registry/index.ts';
import type { RegistryStore } from '../../store/registries.ts';

/** Image lookups on behalf of an org. */
export class OrgImages {
  readonly #registries: RegistryStore;
  readonly client: RegistryClient;

  constructor(registries: RegistryStore, client: RegistryClient) {
    this.#registries = registries;
    this.client = client;
  }

  /** Where `image` lives for the org; ConflictError when its `registryRef` names no registry of the org. */
  async locate(orgId: string, image: ImageSource): Promise<ImageLocation> {
    const ref = image.registryRef;
    if (ref === undefined) return locateImage(image, undefined);
    const registry = await this.#registries.endpoint(orgId, ref);
    if (!registry) throw new ConflictError(`registry "${ref}" is not registered in this organization`);
    return locateImage(image, registry);
  }

  /** The digest the image's tag points at now (RegistryError, a 502, when the registry cannot say). */
  async resolve(orgId: string, image: ImageSource): Promise<{ location: ImageLocation; digest: string }> {
    const location = await this.locate(orgId, image);
    return { location, digest: await this.client.resolve(location.endpoint, location.path, image.tag) };
  }

  /** Whether `digest` exists in the image's repository (RegistryError when the registry cannot say). */
  async has(orgId: string, image: ImageSource, digest: string): Promise<boolean> {
    const location = await this.locate(orgId, image);
    return this.client.has(location.endpoint, location.path, digest);
  }
}
