/**
 * age identities of `sops` stores (contract §4.4 rule 5), with the age-encryption library (the reference
 * TypeScript implementation by age's author): the public recipient a user encrypts SOPS files for, and the Test
 * round trip. Decrypting SOPS files is the real `sops` binary's job (src/render/sops.ts), never this module's.
 */
import { randomBytes } from 'node:crypto';
import { Decrypter, Encrypter, identityToRecipient } from 'age-encryption';
import { InputError } from '../core/errors.ts';
import { StoreError } from './errors.ts';

/** The recipient (`age1…`) of an X25519 identity; InputError (400) when the key is not one. */
export async function ageRecipientOf(privateKey: string): Promise<string> {
  try {
    return await identityToRecipient(privateKey);
  } catch {
    // The library's message may quote the key: never pass it on.
    throw new InputError('credentials.privateKey is not a valid age X25519 identity (AGE-SECRET-KEY-1…)');
  }
}

/** Test of an age store: encrypts a random message to the identity's recipient and decrypts it with the identity. */
export async function ageRoundTrip(privateKey: string): Promise<{ recipient: string; roundTrip: true }> {
  const recipient = await ageRecipientOf(privateKey);
  const message = randomBytes(32).toString('base64');
  try {
    const encrypter = new Encrypter();
    encrypter.addRecipient(recipient);
    const ciphertext = await encrypter.encrypt(message);
    const decrypter = new Decrypter();
    decrypter.addIdentity(privateKey);
    const back = await decrypter.decrypt(ciphertext, 'text');
    if (back !== message) throw new Error('decrypted text differs');
  } catch (err) {
    throw new StoreError(
      'provider',
      'age round trip failed: the identity does not decrypt what its recipient encrypts',
      {
        cause: err instanceof Error ? new Error(err.name) : undefined,
      },
    );
  }
  return { recipient, roundTrip: true };
}
