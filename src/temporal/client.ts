import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

export interface TemporalOptions {
  address: string;
  namespace: string;
}

export async function connectTemporal(options: TemporalOptions): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace });
  return { client, connection };
}

/**
 * Registers the custom search attributes on the namespace if they are missing. Safe to run
 * from every process at start; a concurrent registration of the same key is tolerated.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of missing) searchAttributes[key.name] = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (error) {
    if (!/already exists/i.test(String((error as Error).message))) throw error;
  }
}

/** Waits until the server answers, for processes that start before it is ready. */
export async function waitForTemporal(address: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`Temporal at ${address} did not answer within ${timeoutMs} ms: ${(lastError as Error)?.message}`);
}
