/** The OCI distribution client (design §3 `src/registry`): tag → digest, digest presence, credential checks. */
export { type Challenge, parseChallenge } from './challenge.ts';
export { MANIFEST_ACCEPT, RegistryClient, type RegistryClientOptions, type RegistryEndpoint } from './client.ts';
export { networkFailure, RegistryError, type RegistryErrorClass } from './errors.ts';
export { type ImageLocation, locateImage } from './location.ts';
