/**
 * Opaque page cursors for keyset pagination: the sort-key values of the last item of a page,
 * encoded as base64url JSON. Decoding checks the shape, so a forged or stale cursor is a clear
 * error instead of a bad query.
 */
export type CursorValue = string | number;

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, kinds: ('string' | 'date' | 'number')[]): CursorValue[] | null {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(values) || values.length !== kinds.length) return null;
  for (let i = 0; i < kinds.length; i++) {
    const v = values[i];
    if (kinds[i] === 'number' ? typeof v !== 'number' || !Number.isFinite(v) : typeof v !== 'string') return null;
    if (kinds[i] === 'date' && Number.isNaN(Date.parse(v as string))) return null;
  }
  return values as CursorValue[];
}
