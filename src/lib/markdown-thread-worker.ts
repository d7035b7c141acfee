/**
 * The helper thread of markdown-thread.ts: answers `{ id, markdowns }` with the sanitized HTML
 * tree of each (`{ id, trees }`), or `{ id, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { markdownToSafeTree } from '../domain/content/html.ts';

parentPort!.on('message', ({ id, markdowns }: { id: number; markdowns: string[] }) => {
  try {
    parentPort!.postMessage({ id, trees: markdowns.map((markdown) => markdownToSafeTree(markdown)) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
