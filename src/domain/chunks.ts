/**
 * Runs `write` once per slice of at most `size` items, one after the other (so in the caller's
 * transaction): a bulk write of a large revision sends bounded statements instead of one holding
 * every row. With `bytes`, a slice also holds at most `bytes.max` of what `bytes.of` counts (but
 * always one item), so that no statement is megabytes long.
 */
export async function inChunks<T>(
  items: T[],
  size: number,
  write: (chunk: T[]) => Promise<unknown>,
  bytes?: { of: (item: T) => number; max: number },
): Promise<void> {
  for (let i = 0; i < items.length;) {
    let end = Math.min(items.length, i + size);
    if (bytes) {
      let total = bytes.of(items[i]);
      for (let j = i + 1; j < end; j++) {
        total += bytes.of(items[j]);
        if (total > bytes.max) end = j;
      }
    }
    await write(items.slice(i, end));
    i = end;
  }
}
