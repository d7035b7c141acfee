import { generateKeyBetween } from 'fractional-indexing';

/**
 * Sibling order is kept as fractional keys: moving an item writes one row, whatever the list size.
 * `lower` is the key of the sibling the item goes after, `upper` of the one it goes before; either
 * may be null (start or end of the list).
 */
export function positionBetween(lower: string | null, upper: string | null): string {
  if (lower !== null && upper !== null && lower >= upper) {
    throw new RangeError('the sibling to place after must come before the sibling to place before');
  }
  return generateKeyBetween(lower, upper);
}
