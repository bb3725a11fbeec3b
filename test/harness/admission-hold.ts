/**
 * A validating admission webhook that can hold writes: registered on a plane for the ConfigMaps of namespaces
 * carrying one label, it allows every request at once, except that while armed it keeps the first write of a chosen
 * object waiting (up to the apiserver's 30 s webhook timeout) until released. A client is then provably mid-apply:
 * the objects before it are written, that one is not. It records every admission request it received (operation,
 * object name, the writer's field manager), so a test can count applies.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AnyObject, ObjectClient } from '../../src/kube/index.ts';
import { createCA, issueCert } from './certs.ts';
import { makeTempDir, removeTempDir } from './process.ts';

/** One admission request as received. */
export interface AdmissionRecord {
  operation: string;
  name: string;
  namespace: string;
  fieldManager: string | undefined;
}

export interface AdmissionHold {
  /** Every admission request received, in order. */
  readonly requests: AdmissionRecord[];
  /** Holds the next write of ConfigMap `name`; `waiting()` is true once it arrived; `release()` allows it. */
  arm(name: string): { waiting(): boolean; release(): void };
  /** Removes the webhook configuration, allows anything held and stops the server. */
  stop(): Promise<void>;
}

interface AdmissionReview {
  request: {
    uid: string;
    operation: string;
    name?: string;
    namespace?: string;
    object?: { metadata?: { name?: string } };
    options?: { fieldManager?: string };
  };
}

/**
 * Starts the webhook server on loopback (TLS with a CA of its own) and registers it on the plane of `objects` as
 * ValidatingWebhookConfiguration `name` for ConfigMap CREATE/UPDATE in namespaces labelled `label=value`.
 */
export async function startAdmissionHold(
  objects: ObjectClient,
  name: string,
  selector: { label: string; value: string },
): Promise<AdmissionHold> {
  const dir = makeTempDir('admission');
  const ca = await createCA(dir);
  const serving = await issueCert(dir, ca, 'serving', {
    subject: '/CN=127.0.0.1',
    usage: 'server',
    altNames: ['IP:127.0.0.1'],
  });
  const requests: AdmissionRecord[] = [];
  const held = new Set<() => void>();
  let armed: { name: string; arrived: boolean; release?: () => void; released: boolean } | undefined;

  const answer = (res: ServerResponse, uid: string) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }),
    );
  };
  const server = createServer(
    { cert: readFileSync(serving.cert), key: readFileSync(serving.key) },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReview;
        const r = review.request;
        const objectName = r.name || r.object?.metadata?.name || '';
        requests.push({
          operation: r.operation,
          name: objectName,
          namespace: r.namespace ?? '',
          fieldManager: r.options?.fieldManager,
        });
        const hold = armed;
        if (hold && !hold.arrived && !hold.released && hold.name === objectName) {
          hold.arrived = true;
          const release = () => {
            held.delete(release);
            answer(res, r.uid);
          };
          hold.release = release;
          held.add(release);
          return;
        }
        answer(res, r.uid);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `${name}.svc.test`,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 30,
        clientConfig: {
          url: `https://127.0.0.1:${port}/`,
          caBundle: Buffer.from(readFileSync(ca.cert)).toString('base64'),
        },
        namespaceSelector: { matchLabels: { [selector.label]: selector.value } },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
      },
    ],
  };
  await objects.apply(config as AnyObject);

  return {
    requests,
    arm(objectName) {
      const hold: { name: string; arrived: boolean; release?: () => void; released: boolean } = {
        name: objectName,
        arrived: false,
        released: false,
      };
      armed = hold;
      return {
        waiting: () => hold.arrived && !hold.released,
        release: () => {
          hold.released = true;
          hold.release?.();
        },
      };
    },
    async stop() {
      await objects
        .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', name })
        .catch(() => undefined);
      for (const release of [...held]) release();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      removeTempDir(dir);
    },
  };
}
