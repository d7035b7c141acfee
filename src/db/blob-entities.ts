import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The blob registry and the queue of blobs to look at (Migration0033BlobRegistry); read and written in src/db/blobs.ts. */

/** A blob written through the service's store: its size, and the last time a writer stored or touched it. */
export const Blob = defineEntity({
  name: 'Blob',
  tableName: 'blob',
  properties: {
    sha256: p.string().primary(),
    /** Bytes; null for a blob the collection found in the store without a row (written before the registry, or by a restore). */
    size: p.bigint('string').nullable(),
    touchedAt: p.datetime().defaultRaw('now()'),
  },
});
export type Blob = InferEntity<typeof Blob>;

/** A blob that may have lost its last reference: looked at once `since` is older than BLOB_GRACE. */
export const BlobCandidate = defineEntity({
  name: 'BlobCandidate',
  tableName: 'blob_candidate',
  properties: {
    sha256: p.string().primary(),
    since: p.datetime().defaultRaw('now()'),
  },
});
export type BlobCandidate = InferEntity<typeof BlobCandidate>;

export const entities = [Blob, BlobCandidate];
