import { jobIntent, recordAudit } from '../db/audit.ts';
import { JOB_ACTIONS } from '../domain/audit.ts';
import { log } from '@temporalio/activity';
import { mkdtemp, readdir, readFile, rm, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ContentImportConfig } from '../config.ts';
import { documentHash, documentToken, loadPageMap, writeRevision, type FileRow } from '../db/content.ts';
import { lockImportTarget, moveImportTarget, revisionOf } from '../db/content-import.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { recordChangeRequestEdit } from '../db/reviews.ts';
import { readFolder, type FolderFile } from '../domain/content-import/folder.ts';
import type { docxToMarkdown } from '../domain/content-import/docx.ts';
import { contentTypeOf, extensionOf, measureImage } from '../domain/files.ts';
import { htmlToMarkdown } from '../domain/content-import/html.ts';
import { absolutizeMarkdownUrls, boundedImportMarkdown } from '../domain/content-import/markdown.ts';
import { sealContext, wikiRepositoryUrl, type SupportedSource } from '../domain/content-import/sources.ts';
import { mergeImported, planPages, titleFromFileName, toPageMap, type ImportedPage } from '../domain/content-import/tree.ts';
import { readPageFile } from '../domain/git/layout.ts';
import { rewriteLinks } from '../domain/git/links.ts';
import { LayoutError } from '../domain/git/summary.ts';
import { crawlTarget, linkWebsitePages, websiteTree, type CrawledPage } from '../domain/content-import/website.ts';
import type { unzipWithin, ZipLimits } from '../domain/content-import/zip.ts';
import { pageDepthProblem, type PageMap } from '../domain/content/tree.ts';
import { newId } from '../domain/ids.ts';
import { sha256, type BlobStore } from '../lib/blob-store.ts';
import {
  BoundedParseError,
  boundedTask,
  DEFAULT_PARSE_BOUNDS,
  runBounded,
  type ParseFunction,
  type ParseTask,
} from '../lib/bounded-parse.ts';
import { CloneError, guardedClone } from '../lib/guarded-clone.ts';
import {
  beat,
  cancellationSignal,
  heartbeating,
  HEARTBEAT_EVERY_MS,
  previousAttemptDetails,
  throwIfCancelled,
  untilCancelled,
} from '../lib/heartbeat.ts';
import { FetchError, guardedFetch, redactUrl, type FetchPolicy } from '../lib/guarded-fetch.ts';
import type { SecretBox } from '../lib/secrets.ts';

/** One import: what to read, where it goes, and the id of the revision it writes (chosen once, by the API). */
export interface ContentImportInput {
  spaceId: string;
  /** Null: the space's primary content. */
  changeRequestId: string | null;
  source: SupportedSource;
  /** The URL without credentials (shown in errors, kept in the workflow history). */
  url: string;
  /** The URL with its credentials, sealed with the secrets key (`sealContext`); absent without credentials. */
  sealedUrl?: string;
  revisionId: string;
  userId: string;
}

export type ContentImportOutcome =
  | { status: 'imported'; revision: string; importedResources: number; totalResources: number }
  | { status: 'failed'; code: string; message: string }
  | { status: 'refused'; reason: 'not-found' | 'locked' | 'merged' | 'archived' };

/** What reading a source produced, stored as one JSON blob: the history carries its hash only. */
interface ImportBundle {
  /** The imported pages, with their ids; links between them are content references (`gitbook://page/<id>`). */
  pages: PageMap;
  /** Stored files the pages reference (`gitbook://file/<id>`). */
  files: FileRow[];
  /** Resources found in the source, imported or not (pages beyond the crawl limit, say). */
  totalResources: number;
}

export type ReadOutcome =
  { status: 'read'; bundle: string; pages: number; files: number } | Extract<ContentImportOutcome, { status: 'failed' }>;

export interface ContentImportOptions {
  blobs: BlobStore;
  policy: FetchPolicy;
  limits: ContentImportConfig;
  secrets: () => Promise<SecretBox>;
  /** Bounds of the parse threads, when not the defaults (DEFAULT_PARSE_BOUNDS, DOCX_HEAP_MB, PARSE_TIMEOUT_MS); tests lower them. */
  parse?: { heapMb?: number; docxHeapMb?: number; timeoutMs?: number };
}

/** A problem with what the user asked to import: reported, never retried. */
class ImportInputError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const decoder = new TextDecoder('utf-8');
const asText = (bytes: Uint8Array) => decoder.decode(bytes).replace(/^\uFEFF/, '');
function fileNameOf(url: string): string {
  const last = new URL(url).pathname.replace(/\/+$/, '').replace(/^.*\//, '');
  try {
    return decodeURIComponent(last) || 'index';
  } catch {
    return last || 'index';
  }
}

async function store(blobs: BlobStore, bytes: Buffer, contentType: string): Promise<Omit<FileRow, 'id' | 'name'>> {
  const sha256 = await blobs.put(bytes);
  return { sha256, size: bytes.length, contentType, ...measureImage(bytes, contentType) };
}

/**
 * Untrusted archives and documents are unpacked and converted in a bounded thread (lib/bounded-parse.ts),
 * for at most PARSE_TIMEOUT_MS of wall clock (or CONTENT_IMPORT_TIMEOUT if shorter). Inside, archives
 * are counted by the bytes they actually inflate to, within CONTENT_IMPORT_MAX_BYTES and
 * CONTENT_IMPORT_MAX_FILES (domain/content-import/zip.ts). Unpacking keeps its data outside the JS
 * heap and runs with the default heap bound (512 MiB); converting a .docx gets DOCX_HEAP_MB, as
 * mammoth's document tree is large: measured, 5 MiB of document XML (74,000 paragraphs, several
 * hundred pages) peaks near 600 MiB of heap and takes about 15 s, 10 MiB about 30 s.
 */
const UNZIP = boundedTask<typeof unzipWithin>(new URL('../domain/content-import/zip.ts', import.meta.url), 'unzipWithin');
const DOCX = boundedTask<typeof docxToMarkdown>(new URL('../domain/content-import/docx.ts', import.meta.url), 'docxToMarkdown');
export const PARSE_TIMEOUT_MS = 120_000;
export const DOCX_HEAP_MB = 1024;

/** Codes a parse task reports about its input (ZipError, DocxError); anything else it throws reads as "not readable". */
const INPUT_CODES = new Set(['INVALID_ARCHIVE', 'INVALID_DOCX', 'TOO_LARGE', 'TOO_MANY_FILES']);

/**
 * Runs a parse task in a bounded thread (the activity heartbeats meanwhile). What the input causes
 * (the task's own refusal, running out of memory or time) becomes an ImportInputError: the import
 * fails for good with that code, never retried. A thread that cannot start throws; a cancelled
 * activity stops the thread at once and throws its cancellation.
 */
async function parseBounded<F extends ParseFunction>(
  task: ParseTask<F>,
  args: Parameters<F>,
  context: { what: string; invalid: string; timeoutMs: number; heapMb: number },
): Promise<Awaited<ReturnType<F>>> {
  const { heapMb, timeoutMs } = context;
  try {
    return await runBounded(task, args, { timeoutMs, maxOldGenerationSizeMb: heapMb, signal: cancellationSignal() });
  } catch (error) {
    throwIfCancelled();
    if (!(error instanceof BoundedParseError)) throw error;
    switch (error.reason) {
      case 'rejected':
        throw new ImportInputError(INPUT_CODES.has(error.code) ? error.code : context.invalid, error.message);
      case 'out-of-memory':
        throw new ImportInputError('TOO_LARGE', `${context.what} needs more than the ${heapMb} MiB of memory reading it may use`);
      case 'timeout':
        throw new ImportInputError('PARSE_TIMEOUT', `${context.what} could not be read within ${Math.round(timeoutMs / 1000)} s`);
      default:
        throw error;
    }
  }
}

const zipLimits = (limits: ContentImportConfig): ZipLimits => ({ maxFiles: limits.maxFiles, maxBytes: limits.maxBytes });

/** The files of a cloned repository (without .git), within the limits. */
async function readTree(root: string, limits: ContentImportConfig): Promise<FolderFile[]> {
  const out: FolderFile[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && (await lstat(path)).size <= limits.maxBytes) {
        if (out.length >= limits.maxFiles)
          throw new ImportInputError('TOO_MANY_FILES', `The repository holds more than ${limits.maxFiles} files`);
        out.push({ path: relative(root, path).split('\\').join('/'), bytes: await readFile(path) });
      }
    }
  };
  await walk(root);
  return out;
}

/** A file of the import in the blob store, as the bundle lists it but for its id (which the source's layout or a new id gives). */
type StoredFile = Omit<FileRow, 'id'>;

/** A crawled page as a resumed crawl needs it: stored as a blob while the crawl runs. */
interface CrawledPageRecord extends CrawledPage {
  /** The pages it links to on the crawl's origin (`crawlTarget`s), in document order. */
  targets: string[];
}

/**
 * What a read has finished, sent with every heartbeat (as `resume`) so that an attempt after a lost
 * worker, a heartbeat timeout or a failure starts from there (`info.heartbeatDetails`) instead of
 * from the start. What it names is in the blob store, which is content-addressed: a later attempt
 * never finds half of something there.
 */
interface ReadCheckpoint {
  /** The import it belongs to (the revision it writes): a checkpoint of another import is never used. */
  revisionId: string;
  /** sha256 of the downloaded document (docx) the entries below come from: a download that differs starts over. */
  source?: string;
  /** Files stored so far, by where they come from (an image's URL, a path inside a .docx): not fetched or stored again. */
  files: Record<string, StoredFile>;
  /** A .docx converted to markdown (blob of `{ title, body, images }`, the images' paths still in the body): not converted again. */
  converted?: string;
  /**
   * A website crawl: the sha256 of its start page, the pages fetched (blobs of CrawledPageRecord,
   * in crawl order), how many URLs it took from its queue, and the time it spent. A resumed crawl
   * fetches the start page again and goes on from here if that page has not changed.
   */
  crawl?: { start: string; pages: string[]; taken: number; elapsedMs: number };
  /** The bundle, once stored: a later attempt answers with it at once. */
  bundle?: { sha: string; pages: number; files: number };
}

/** Heartbeat details larger than this carry their checkpoint as a blob (Temporal warns about details over 512 KiB). */
const INLINE_CHECKPOINT_CHARS = 128 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The progress of one attempt of `readContentImport`: its stage and counters, and its checkpoint,
 * reported with every heartbeat (`beat`). Built from the previous attempt's last heartbeat, so an
 * attempt resumes what the one before it had finished.
 */
class ReadProgress {
  readonly checkpoint: ReadCheckpoint;
  private status: Record<string, unknown> = { stage: 'starting' };
  /** What the heartbeat carries as `resume`: the checkpoint, or the blob it was last saved to when large. */
  private carried: ReadCheckpoint | { blob: string };
  private savedAt = 0;
  private readonly blobs: BlobStore;

  private constructor(blobs: BlobStore, checkpoint: ReadCheckpoint) {
    this.blobs = blobs;
    this.checkpoint = checkpoint;
    this.carried = checkpoint;
  }

  /** The progress of this attempt: the previous attempt's checkpoint for this import, if any, else a fresh one. */
  static async start(blobs: BlobStore, revisionId: string): Promise<ReadProgress> {
    const previous = await ReadProgress.previous(blobs);
    if (previous?.revisionId === revisionId && isRecord(previous.files)) return new ReadProgress(blobs, previous);
    return new ReadProgress(blobs, { revisionId, files: {} });
  }

  private static async previous(blobs: BlobStore): Promise<ReadCheckpoint | undefined> {
    const details = previousAttemptDetails();
    if (!isRecord(details) || !isRecord(details.resume)) return undefined;
    const resume = details.resume;
    if (typeof resume.blob !== 'string') return resume as unknown as ReadCheckpoint;
    const stored = await blobs.get(resume.blob);
    try {
      return stored ? (JSON.parse(stored.toString('utf8')) as ReadCheckpoint) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The heartbeat details now: the stage with its counters, and the checkpoint. */
  details(): Record<string, unknown> {
    return { ...this.status, resume: this.carried };
  }

  /** Sets the stage and its counters, reported with the next heartbeat. */
  report(stage: string, counters: Record<string, unknown> = {}): void {
    this.status = { stage, ...counters };
  }

  /** Reports the stage now (the heartbeat re-sends it until the next report). */
  beat(stage: string, counters: Record<string, unknown> = {}): void {
    this.report(stage, counters);
    beat(this.details());
  }

  /**
   * Makes the checkpoint's latest state what the heartbeat carries. A large checkpoint (thousands
   * of images) goes to the blob store instead, at most once per heartbeat interval unless `force`.
   */
  async save(force = false): Promise<void> {
    const text = JSON.stringify(this.checkpoint);
    if (text.length <= INLINE_CHECKPOINT_CHARS) this.carried = this.checkpoint;
    else if (force || Date.now() - this.savedAt >= HEARTBEAT_EVERY_MS) {
      this.carried = { blob: await this.blobs.put(Buffer.from(text, 'utf8')) };
      this.savedAt = Date.now();
    }
    beat(this.details());
  }

  /** Starts over what came from `source` (sha256 of a download) unless it is the source the checkpoint's entries came from. */
  useSource(source: string): void {
    if (this.checkpoint.source === source) return;
    this.checkpoint.source = source;
    this.checkpoint.files = {};
    delete this.checkpoint.converted;
  }

  async addFile(key: string, file: StoredFile): Promise<void> {
    this.checkpoint.files[key] = file;
    await this.save();
  }

  /** A JSON blob the checkpoint names, or undefined when it is missing or unreadable (the work is then done again). */
  async readJson<T>(sha: string): Promise<T | undefined> {
    const stored = await this.blobs.get(sha);
    if (!stored) return undefined;
    try {
      return JSON.parse(stored.toString('utf8')) as T;
    } catch {
      return undefined;
    }
  }
}

/** The import activities; their settings are read once, here (the worker's start), never during an activity. */
export function contentImportActivities(orm: Orm, options: ContentImportOptions) {
  const deps = () => options;

  /** Heap and deadline of a parse thread: the defaults, or the options'; never past CONTENT_IMPORT_TIMEOUT. */
  const parseBounds = (docx: boolean) => ({
    heapMb: docx ? (options.parse?.docxHeapMb ?? DOCX_HEAP_MB) : (options.parse?.heapMb ?? DEFAULT_PARSE_BOUNDS.maxOldGenerationSizeMb),
    timeoutMs: Math.min(options.limits.timeoutMs, options.parse?.timeoutMs ?? PARSE_TIMEOUT_MS),
  });

  /**
   * A download: documents within FETCH_MAX_BYTES and FETCH_TIMEOUT, archives within the import's
   * own limits (CONTENT_IMPORT_MAX_BYTES, CONTENT_IMPORT_TIMEOUT). A cancelled activity stops
   * waiting for it at once.
   */
  const download = async (url: string, kind: 'document' | 'archive', accept?: string) => {
    const { policy, limits } = deps();
    const bounded =
      kind === 'archive' ? { ...policy, maxBytes: limits.maxBytes, timeoutMs: Math.max(policy.timeoutMs, limits.timeoutMs) } : policy;
    return untilCancelled(guardedFetch(url, bounded, accept ? { accept } : {}));
  };

  /** Pages and files of a folder (zip, wiki) through the git layout reader; stores the files pages use. */
  async function folderBundle(files: FolderFile[], wiki: boolean, progress: ReadProgress): Promise<ImportBundle> {
    let folder;
    try {
      folder = readFolder(files, { wiki });
    } catch (error) {
      if (error instanceof LayoutError) throw new ImportInputError(error.code, error.message);
      throw error;
    }
    // A file stored by an earlier attempt costs its hash and an existence check in the store here, no upload.
    const stored: FileRow[] = [];
    for (const file of folder.layout.files) {
      const bytes = folder.bytes.get(file.path);
      if (!bytes) continue;
      throwIfCancelled();
      stored.push({ id: file.id, name: file.name, ...(await store(deps().blobs, Buffer.from(bytes), contentTypeOf(file.path))) });
      if (stored.length % 20 === 0) progress.beat('storing files', { files: stored.length });
    }
    return {
      pages: folder.layout.pages,
      files: stored,
      totalResources: Object.keys(folder.layout.pages).length + folder.layout.files.length,
    };
  }

  /** A page's markdown as it is stored: past the limits, its text (logged as a warning; the import goes on). */
  function bounded_(markdown: string, url: string): ReturnType<typeof boundedImportMarkdown> {
    const bounded = boundedImportMarkdown(markdown);
    if (bounded.problem) {
      try {
        log.warn('content import: a page is kept as text', { url: redactUrl(url), problem: bounded.problem.message });
      } catch {
        // outside an activity (called directly): the page itself says why it is text
      }
    }
    return bounded;
  }

  /** One page (markdown, html, docx) as a bundle. */
  function singlePage(page: ImportedPage, files: FileRow[] = []): ImportBundle {
    return { pages: toPageMap(planPages([page], () => newId())), files, totalResources: 1 + files.length };
  }

  /**
   * The images pages of a web source show, from the source's own origin: downloaded (as
   * documents are, through the guarded fetcher), stored, and referenced as files. An image that
   * cannot be fetched keeps its URL. Images an earlier attempt stored are not fetched again.
   * Returns the files and a rewrite of page markdown.
   */
  async function webImages(
    markdowns: string[],
    origin: string,
    progress: ReadProgress,
  ): Promise<{ files: FileRow[]; found: number; rewrite: (markdown: string) => string }> {
    const { limits } = deps();
    const wanted = new Set<string>();
    for (const markdown of markdowns) {
      rewriteLinks(markdown, (url, kind) => {
        if (kind === 'link') return null;
        try {
          const target = new URL(url);
          if (target.origin === origin && (target.protocol === 'http:' || target.protocol === 'https:')) wanted.add(target.href);
        } catch {
          // not an absolute URL
        }
        return null;
      });
    }
    const files: FileRow[] = [];
    const byUrl = new Map<string, string>();
    for (const url of [...wanted].slice(0, limits.maxFiles)) {
      throwIfCancelled();
      const known = progress.checkpoint.files[url];
      if (known) {
        const file = { id: newId(), ...known };
        files.push(file);
        byUrl.set(url, file.id);
        continue;
      }
      try {
        const fetched = await download(url, 'document', 'image/*');
        const type = (fetched.contentType ?? '').split(';')[0].trim().toLowerCase();
        if (!type.startsWith('image/')) continue;
        const name = new URL(fetched.url).pathname.endsWith('/') ? `image.${extensionOf(type)}` : fileNameOf(fetched.url);
        const stored = { name, ...(await store(deps().blobs, fetched.body, type)) };
        const file = { id: newId(), ...stored };
        files.push(file);
        byUrl.set(url, file.id);
        progress.report('images', { files: files.length });
        await progress.addFile(url, stored);
      } catch (error) {
        if (!(error instanceof FetchError)) throw error;
      }
    }
    const rewrite = (markdown: string) =>
      byUrl.size === 0
        ? markdown
        : rewriteLinks(markdown, (url, kind) => (kind !== 'link' && byUrl.has(url) ? `gitbook://file/${byUrl.get(url)}` : null));
    return { files, found: wanted.size, rewrite };
  }

  /**
   * Crawls a website from `start` on its origin, breadth first, within CONTENT_IMPORT_MAX_PAGES and
   * CONTENT_IMPORT_TIMEOUT. Each page fetched is stored as a blob and named in the checkpoint: an
   * attempt after a lost worker fetches the start page again and, if it is unchanged, takes the
   * pages already fetched from the store and goes on with the rest of the queue.
   */
  async function crawl(start: string, progress: ReadProgress): Promise<ImportBundle> {
    const { limits, policy, blobs } = deps();
    const first = crawlTarget(start, new URL(start).origin) ?? start;
    const origin = new URL(first).origin;
    let queue: string[] = [first];
    let seen = new Set<string>([first]);
    let pages: CrawledPage[] = [];
    let records: string[] = [];
    let taken = 0;
    let started = Date.now();
    const visit = (page: CrawledPageRecord) => {
      pages.push({ url: page.url, title: page.title, markdown: page.markdown });
      for (const target of page.targets) {
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    };
    /** Takes up the crawl an earlier attempt stored, if it started from this very page; whether it did. */
    const resume = async (startHash: string): Promise<boolean> => {
      const saved = progress.checkpoint.crawl;
      if (!saved || saved.start !== startHash) return false;
      const restored: CrawledPageRecord[] = [];
      for (const sha of saved.pages) {
        const page = await progress.readJson<CrawledPageRecord>(sha);
        if (!page) return false;
        restored.push(page);
      }
      // The queue is replayed from the pages' links: the same order, less the URLs already taken.
      queue = [first];
      seen = new Set([first]);
      pages = [];
      for (const page of restored) visit(page);
      queue.splice(0, saved.taken);
      taken = saved.taken;
      records = [...saved.pages];
      started = Date.now() - saved.elapsedMs;
      return true;
    };
    while (queue.length > 0 && pages.length < limits.maxPages && Date.now() - started < limits.timeoutMs) {
      throwIfCancelled();
      const url = queue.shift()!;
      taken += 1;
      let fetched;
      try {
        fetched = await untilCancelled(guardedFetch(url, policy, { accept: 'text/html,application/xhtml+xml' }));
      } catch (error) {
        // The start page must load; a broken link further in is skipped.
        if (pages.length === 0) throw error;
        continue;
      }
      if (!/html/i.test(fetched.contentType ?? 'text/html')) {
        if (pages.length === 0) throw new ImportInputError('NOT_HTML', `${redactUrl(url)} is not an HTML page (${fetched.contentType})`);
        continue;
      }
      // A redirect to another origin is not followed into the crawl.
      if (new URL(fetched.url).origin !== origin && pages.length > 0) continue;
      const startHash = pages.length === 0 ? sha256(fetched.body) : null;
      if (startHash !== null && (await resume(startHash))) {
        progress.beat('crawling', { pages: pages.length, queued: queue.length, resumed: pages.length });
        continue;
      }
      const converted = htmlToMarkdown(asText(fetched.body), { baseUrl: fetched.url, mainContent: true });
      const page: CrawledPageRecord = {
        url,
        title: converted.title,
        markdown: bounded_(converted.body, url).markdown,
        targets: converted.links.map((link) => crawlTarget(link, origin)).filter((target): target is string => target !== null),
      };
      visit(page);
      records.push(await blobs.put(Buffer.from(JSON.stringify(page), 'utf8')));
      const previous = progress.checkpoint.crawl;
      progress.checkpoint.crawl = {
        start: startHash ?? previous!.start,
        pages: [...records],
        taken,
        elapsedMs: Date.now() - started,
      };
      progress.report('crawling', { pages: pages.length, queued: queue.length });
      await progress.save();
    }
    const images = await webImages(
      pages.map((p) => p.markdown),
      origin,
      progress,
    );
    const planned = planPages(websiteTree(pages.map((p) => ({ ...p, markdown: images.rewrite(p.markdown) }))), () => newId());
    const linked = linkWebsitePages(planned, origin);
    // Pages found but not fetched (beyond the page limit or the deadline) count in the total.
    return {
      pages: toPageMap(planned, (p) => linked.get(p.id) ?? p.page.markdown),
      files: images.files,
      totalResources: pages.length + queue.length + images.found,
    };
  }

  /**
   * A .docx as one page with its images as files. The converted document is stored and named in
   * the checkpoint, and so is each image stored: an attempt after a lost worker whose download is
   * the same document converts and stores nothing again.
   */
  async function docx(url: string, progress: ReadProgress): Promise<ImportBundle> {
    const { blobs, limits } = deps();
    const fetched = await download(url, 'archive');
    progress.useSource(sha256(fetched.body));
    let converted = progress.checkpoint.converted
      ? await progress.readJson<{ title: string | null; body: string; images: string[] }>(progress.checkpoint.converted)
      : undefined;
    let images: { path: string; bytes: Uint8Array | null }[];
    if (converted && converted.images.every((path) => progress.checkpoint.files[`docx:${path}`])) {
      images = converted.images.map((path) => ({ path, bytes: null }));
    } else {
      progress.beat('converting', { bytes: fetched.body.length });
      const result = await parseBounded(DOCX, [fetched.body, zipLimits(limits)], {
        what: 'The document',
        invalid: 'INVALID_DOCX',
        ...parseBounds(true),
      });
      converted = { title: result.title ?? null, body: result.body, images: result.images.map((image) => image.path) };
      images = result.images;
      progress.checkpoint.converted = await blobs.put(Buffer.from(JSON.stringify(converted), 'utf8'));
      await progress.save();
    }
    const files: FileRow[] = [];
    const ids = new Map<string, string>();
    for (const image of images) {
      throwIfCancelled();
      const key = `docx:${image.path}`;
      let stored = progress.checkpoint.files[key];
      if (!stored) {
        const bytes = Buffer.from(image.bytes!.buffer, image.bytes!.byteOffset, image.bytes!.byteLength);
        stored = { name: image.path.replace(/^.*\//, ''), ...(await store(blobs, bytes, contentTypeOf(image.path))) };
        await progress.addFile(key, stored);
      }
      const file = { id: newId(), ...stored };
      files.push(file);
      ids.set(image.path, file.id);
    }
    const body = rewriteLinks(bounded_(converted.body, url).markdown, (target) =>
      ids.has(target) ? `gitbook://file/${ids.get(target)}` : null,
    );
    return singlePage({ title: converted.title ?? titleFromFileName(fileNameOf(fetched.url)), markdown: body, children: [] }, files);
  }

  async function readSource(input: ContentImportInput, progress: ReadProgress): Promise<ImportBundle> {
    const { limits, policy } = deps();
    const url = input.sealedUrl ? (await deps().secrets()).open(input.sealedUrl, sealContext(input.spaceId)) : input.url;
    switch (input.source) {
      case 'markdown': {
        progress.beat('downloading');
        const fetched = await download(url, 'document', 'text/markdown,text/plain,*/*');
        const bounded = bounded_(asText(fetched.body), url);
        if (bounded.problem) {
          const page = { title: titleFromFileName(fileNameOf(fetched.url)), markdown: bounded.markdown, children: [] };
          return { ...singlePage(page), totalResources: 1 };
        }
        const file = readPageFile(bounded.markdown);
        const markdown = absolutizeMarkdownUrls(file.body, fetched.url);
        const images = await webImages([markdown], new URL(fetched.url).origin, progress);
        const page = {
          title: file.title ?? titleFromFileName(fileNameOf(fetched.url)),
          description: file.fields.description ?? null,
          markdown: images.rewrite(markdown),
          children: [],
        };
        return { ...singlePage(page, images.files), totalResources: 1 + images.found };
      }
      case 'html': {
        progress.beat('downloading');
        const fetched = await download(url, 'document', 'text/html,application/xhtml+xml');
        const converted = htmlToMarkdown(asText(fetched.body), { baseUrl: fetched.url, mainContent: true });
        const body = bounded_(converted.body, url).markdown;
        const images = await webImages([body], new URL(fetched.url).origin, progress);
        const page = {
          title: converted.title ?? titleFromFileName(fileNameOf(fetched.url)),
          markdown: images.rewrite(body),
          children: [],
        };
        return { ...singlePage(page, images.files), totalResources: 1 + images.found };
      }
      case 'zip': {
        progress.beat('downloading');
        const fetched = await download(url, 'archive');
        progress.beat('unpacking', { bytes: fetched.body.length });
        const files = await parseBounded(UNZIP, [fetched.body, zipLimits(limits)], {
          what: 'The archive',
          invalid: 'INVALID_ARCHIVE',
          ...parseBounds(false),
        });
        return folderBundle(files, false, progress);
      }
      case 'docx':
        progress.beat('downloading');
        return docx(url, progress);
      case 'website':
        progress.beat('crawling', { pages: 0 });
        return crawl(url, progress);
      case 'github-wiki': {
        const repository = wikiRepositoryUrl(url);
        if (repository === null)
          throw new ImportInputError('INVALID_URL', `${input.url} is not a wiki: give the wiki's URL (…/wiki) or its git URL (….wiki.git)`);
        const dir = await mkdtemp(join(tmpdir(), 'content-import-'));
        try {
          progress.beat('cloning', { bytes: 0 });
          await untilCancelled(
            guardedClone(repository, join(dir, 'wiki'), policy, {
              timeoutMs: limits.timeoutMs,
              maxBytes: limits.maxBytes,
              onProgress: (bytes) => progress.beat('cloning', { bytes }),
            }),
          );
          return folderBundle(await readTree(join(dir, 'wiki'), limits), true, progress);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
  }

  /** The stored bundle an earlier attempt of this read finished, if it is still in the store. */
  async function finishedRead(progress: ReadProgress): Promise<ReadOutcome | undefined> {
    const done = progress.checkpoint.bundle;
    if (!done || !(await deps().blobs.has(done.sha))) return undefined;
    return { status: 'read', bundle: done.sha, pages: done.pages, files: done.files };
  }

  return {
    /**
     * Reads the source: fetches, unpacks or crawls it, converts documents to markdown and stores
     * the files pages use. Returns the hash of the stored bundle, or why the source cannot be read
     * (not retried: the source is the caller's to fix). Safe to retry: blobs are content-addressed,
     * and an attempt after a lost worker resumes from the previous attempt's checkpoint (see
     * ReadCheckpoint). A cancelled read stops at its next step; it has written blobs only.
     */
    async readContentImport(input: ContentImportInput): Promise<ReadOutcome> {
      const progress = await ReadProgress.start(deps().blobs, input.revisionId);
      return heartbeating(async () => {
        const finished = await finishedRead(progress);
        if (finished) return finished;
        let bundle: ImportBundle;
        try {
          bundle = await readSource(input, progress);
        } catch (error) {
          throwIfCancelled();
          if (error instanceof FetchError) return { status: 'failed', code: error.code, message: error.message };
          if (error instanceof CloneError) return { status: 'failed', code: error.code, message: error.message };
          if (error instanceof ImportInputError) return { status: 'failed', code: error.code, message: error.message };
          throw error;
        }
        throwIfCancelled();
        const pages = Object.keys(bundle.pages).length;
        if (pages === 0) return { status: 'failed', code: 'NO_CONTENT', message: `Nothing to import was found at ${input.url}` };
        const tooDeep = pageDepthProblem(bundle.pages);
        if (tooDeep) return { status: 'failed', code: 'TOO_DEEP', message: `The content nests its pages too deeply: ${tooDeep}` };
        const sha = await deps().blobs.put(Buffer.from(JSON.stringify(bundle), 'utf8'));
        progress.checkpoint.bundle = { sha, pages, files: bundle.files.length };
        progress.report('read', { pages, files: bundle.files.length });
        await progress.save(true);
        return { status: 'read', bundle: sha, pages, files: bundle.files.length };
      }, progress.details());
    },

    /**
     * Writes the read content as one new revision (id chosen by the API) on the space or change
     * request, in one transaction. Idempotent: a retry after the write returns that revision. A
     * cancelled activity rolls the transaction back (its cancellation is checked before the commit).
     * The search index follows in a job of its own, which the workflow starts.
     */
    async applyContentImport(input: ContentImportInput & { bundle: string }): Promise<ContentImportOutcome> {
      return heartbeating(
        async () => {
          const raw = await deps().blobs.get(input.bundle);
          if (!raw) throw new Error(`The import bundle ${input.bundle} is missing from the blob store`);
          throwIfCancelled();
          const bundle = JSON.parse(raw.toString('utf8')) as ImportBundle;
          const imported = Object.keys(bundle.pages).length + bundle.files.length;
          const done = {
            status: 'imported' as const,
            revision: input.revisionId,
            importedResources: imported,
            totalResources: Math.max(imported, bundle.totalResources),
          };
          return transaction(forkEm(orm), async (em): Promise<ContentImportOutcome> => {
            const target = await lockImportTarget(em, input.spaceId, input.changeRequestId);
            if (!target) return { status: 'refused', reason: 'not-found' };
            if ((await revisionOf(em, input.revisionId)) !== undefined) return done;
            if (target.edit_mode === 'locked') return { status: 'refused', reason: 'locked' };
            if (target.change_request_status === 'merged' || target.change_request_status === 'archived') {
              return { status: 'refused', reason: target.change_request_status };
            }
            const existing = await loadPageMap(em, target.revision_id, false);
            const ids = Object.keys(existing);
            // Whether the one page of a new space is still empty needs its text: an empty document's token.
            if (ids.length === 1 && existing[ids[0]].markdown === documentToken(documentHash('')))
              existing[ids[0]] = { ...existing[ids[0]], markdown: '' };
            const { pages } = mergeImported(existing, bundle.pages);

            await writeRevision(em, {
              id: input.revisionId,
              spaceId: input.spaceId,
              parents: [target.revision_id],
              type: 'edits',
              changeRequestId: target.change_request_id,
              base: { revisionId: target.revision_id, pages: existing },
              pages,
              addedFiles: bundle.files,
            });
            await moveImportTarget(em, target, input.revisionId);
            // An import into a change request is an edit of it by whoever asked for the import.
            if (target.change_request_id) await recordChangeRequestEdit(em, target.change_request_id, input.revisionId, input.userId);
            // The audit event of what the job wrote, in its transaction: once, however often the step is retried.
            await recordAudit(
              em,
              jobIntent({
                action: JOB_ACTIONS.contentImport.action,
                userId: input.userId,
                spaceId: input.spaceId,
                target: target.change_request_id
                  ? { type: 'change-request', id: target.change_request_id }
                  : { type: 'space', id: input.spaceId },
                fallbackCorrelationId: `content-import/${input.revisionId}`,
                payload: { spaceId: input.spaceId, revision: input.revisionId },
              }),
            );
            // Cancelled meanwhile: throwing here rolls the revision back, so the target stays as it was.
            throwIfCancelled();
            return done;
          });
        },
        { stage: 'writing' },
      );
    },
  };
}

export type ContentImportActivities = ReturnType<typeof contentImportActivities>;
