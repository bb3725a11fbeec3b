/**
 * Where an image source lives: the registry endpoint to ask, the repository path on it, and the image name Pods
 * pull. One rule for the operator (resolve and render), the API (preview, promote) and the tag poller.
 */
import type { ImageSource } from '../core/app-schema.ts';
import { InputError } from '../core/errors.ts';
import { imageName, splitRepository } from '../core/image-ref.ts';
import type { RegistryEndpoint } from './client.ts';

/** An image source located. */
export interface ImageLocation {
  endpoint: RegistryEndpoint;
  /** Repository path on the registry. */
  path: string;
  /** What Pods pull, without tag or digest: `<registry host>/<repository>`, or the repository as written. */
  name: string;
}

/**
 * Locates `image`: with a `registryRef`, `registry` is that registry (the repository is relative to its host, its
 * credentials apply); without one, the repository names its registry (Docker Hub when it names none) and is asked
 * anonymously over https. InputError when the repository cannot be split.
 */
export function locateImage(image: ImageSource, registry: RegistryEndpoint | undefined): ImageLocation {
  if (image.registryRef !== undefined) {
    if (!registry) throw new InputError(`registry "${image.registryRef}" is needed to locate ${image.repository}`);
    return { endpoint: registry, path: image.repository, name: imageName(image, registry.host) };
  }
  const split = splitRepository(image.repository);
  if (!split) throw new InputError(`spec.source.image.repository "${image.repository}" is not an image repository`);
  return { endpoint: { host: split.host }, path: split.path, name: image.repository };
}
