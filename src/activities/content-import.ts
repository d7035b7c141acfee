import { Context } from '@temporalio/activity';
import { mkdtemp, readdir, readFile, rm, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ContentImportConfig } from '../config.ts';
import { documentHash, documentToken, loadPageMap, writeRevision, type FileRow } from '../db/content.ts';
import { lockImportTarget, moveImportTarget, revisionOf } from '../db/content-import.ts';
import type { Orm } from '../db/orm.ts';
import { syncSearchIndex } from '../db/search.ts';
import { readFolder, type FolderFile } from '../domain/content-import/folder.ts';
import type { docxToMarkdown } from '../domain/content-import/docx.ts';
import { contentTypeOf, extensionOf, measureImage } from '../domain/files.ts';
import { htmlToMarkdown } from '../domain/content-import/html.ts';
import { absolutizeMarkdownUrls } from '../domain/content-import/markdown.ts';
import { sealContext, wikiRepositoryUrl, type SupportedSource } from '../domain/content-import/sources.ts';
import { mergeImported, planPages, titleFromFileName, toPageMap, type ImportedPage } from '../domain/content-import/tree.ts';
import { readPageFile } from '../domain/git/layout.ts';
import { rewriteLinks } from '../domain/git/links.ts';
import { LayoutError } from '../domain/git/summary.ts';
import { crawlTarget, linkWebsitePages, websiteTree, type CrawledPage } from '../domain/content-import/website.ts';
import type { unzipWithin, ZipLimits } from '../domain/content-import/zip.ts';
import { pageDepthProblem, type PageMap } from '../domain/content/tree.ts';
import { newId } from '../domain/ids.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import {
  BoundedParseError,
  boundedTask,
  DEFAULT_PARSE_BOUNDS,
  runBounded,
  type ParseFunction,
  type ParseTask,
} from '../lib/bounded-parse.ts';
import { CloneError, guardedClone } from '../lib/guarded-clone.ts';
import { beat } from '../lib/heartbeat.ts';
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

/** The activity's cancellation (a heartbeat timeout, a cancelled workflow) as a signal; none outside an activity. */
function cancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * Runs a parse task in a bounded thread, heartbeating meanwhile. What the input causes (the task's
 * own refusal, running out of memory or time) becomes an ImportInputError: the import fails for
 * good with that code, never retried. A thread that cannot start, or a cancelled activity, throws.
 */
async function parseBounded<F extends ParseFunction>(
  task: ParseTask<F>,
  args: Parameters<F>,
  context: { what: string; invalid: string; stage: string; timeoutMs: number; heapMb: number },
): Promise<Awaited<ReturnType<F>>> {
  const { heapMb, timeoutMs } = context;
  const beating = setInterval(() => beat({ stage: context.stage }), 5000);
  try {
    return await runBounded(task, args, { timeoutMs, maxOldGenerationSizeMb: heapMb, signal: cancellation() });
  } catch (error) {
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
  } finally {
    clearInterval(beating);
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
   * own limits (CONTENT_IMPORT_MAX_BYTES, CONTENT_IMPORT_TIMEOUT), heartbeating while it runs.
   */
  const download = async (url: string, kind: 'document' | 'archive', accept?: string) => {
    const { policy, limits } = deps();
    const bounded =
      kind === 'archive' ? { ...policy, maxBytes: limits.maxBytes, timeoutMs: Math.max(policy.timeoutMs, limits.timeoutMs) } : policy;
    const beating = setInterval(() => beat({ stage: 'downloading' }), 5000);
    try {
      return await guardedFetch(url, bounded, accept ? { accept } : {});
    } finally {
      clearInterval(beating);
    }
  };

  /** Pages and files of a folder (zip, wiki) through the git layout reader; stores the files pages use. */
  async function folderBundle(files: FolderFile[], wiki: boolean): Promise<ImportBundle> {
    let folder;
    try {
      folder = readFolder(files, { wiki });
    } catch (error) {
      if (error instanceof LayoutError) throw new ImportInputError(error.code, error.message);
      throw error;
    }
    const stored: FileRow[] = [];
    for (const file of folder.layout.files) {
      const bytes = folder.bytes.get(file.path);
      if (!bytes) continue;
      stored.push({ id: file.id, name: file.name, ...(await store(deps().blobs, Buffer.from(bytes), contentTypeOf(file.path))) });
      if (stored.length % 20 === 0) beat({ stage: 'storing files', files: stored.length });
    }
    return {
      pages: folder.layout.pages,
      files: stored,
      totalResources: Object.keys(folder.layout.pages).length + folder.layout.files.length,
    };
  }

  /** One page (markdown, html, docx) as a bundle. */
  function singlePage(page: ImportedPage, files: FileRow[] = []): ImportBundle {
    return { pages: toPageMap(planPages([page], () => newId())), files, totalResources: 1 + files.length };
  }

  /**
   * The images pages of a web source show, from the source's own origin: downloaded (as
   * documents are, through the guarded fetcher), stored, and referenced as files. An image that
   * cannot be fetched keeps its URL. Returns the files and a rewrite of page markdown.
   */
  async function webImages(
    markdowns: string[],
    origin: string,
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
      try {
        const fetched = await download(url, 'document', 'image/*');
        const type = (fetched.contentType ?? '').split(';')[0].trim().toLowerCase();
        if (!type.startsWith('image/')) continue;
        const name = new URL(fetched.url).pathname.endsWith('/') ? `image.${extensionOf(type)}` : fileNameOf(fetched.url);
        const file = { id: newId(), name, ...(await store(deps().blobs, fetched.body, type)) };
        files.push(file);
        byUrl.set(url, file.id);
      } catch (error) {
        if (!(error instanceof FetchError)) throw error;
      }
      beat({ stage: 'images', files: files.length });
    }
    const rewrite = (markdown: string) =>
      byUrl.size === 0
        ? markdown
        : rewriteLinks(markdown, (url, kind) => (kind !== 'link' && byUrl.has(url) ? `gitbook://file/${byUrl.get(url)}` : null));
    return { files, found: wanted.size, rewrite };
  }

  async function crawl(start: string): Promise<ImportBundle> {
    const { limits, policy } = deps();
    const first = crawlTarget(start, new URL(start).origin) ?? start;
    const origin = new URL(first).origin;
    const queue: string[] = [first];
    const seen = new Set<string>([first]);
    const pages: CrawledPage[] = [];
    const started = Date.now();
    while (queue.length > 0 && pages.length < limits.maxPages && Date.now() - started < limits.timeoutMs) {
      const url = queue.shift()!;
      let fetched;
      try {
        fetched = await guardedFetch(url, policy, { accept: 'text/html,application/xhtml+xml' });
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
      const converted = htmlToMarkdown(asText(fetched.body), { baseUrl: fetched.url, mainContent: true });
      pages.push({ url, title: converted.title, markdown: converted.body });
      for (const link of converted.links) {
        const target = crawlTarget(link, origin);
        if (target !== null && !seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
      beat({ stage: 'crawling', pages: pages.length, queued: queue.length });
    }
    const images = await webImages(
      pages.map((p) => p.markdown),
      origin,
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

  async function docx(url: string): Promise<ImportBundle> {
    const { blobs, limits } = deps();
    const fetched = await download(url, 'archive');
    beat({ stage: 'converting', bytes: fetched.body.length });
    const converted = await parseBounded(DOCX, [fetched.body, zipLimits(limits)], {
      what: 'The document',
      invalid: 'INVALID_DOCX',
      stage: 'converting',
      ...parseBounds(true),
    });
    const files: FileRow[] = [];
    const ids = new Map<string, string>();
    for (const image of converted.images) {
      const bytes = Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength);
      const file = { id: newId(), name: image.path.replace(/^.*\//, ''), ...(await store(blobs, bytes, contentTypeOf(image.path))) };
      files.push(file);
      ids.set(image.path, file.id);
    }
    const body = rewriteLinks(converted.body, (target) => (ids.has(target) ? `gitbook://file/${ids.get(target)}` : null));
    return singlePage({ title: converted.title ?? titleFromFileName(fileNameOf(fetched.url)), markdown: body, children: [] }, files);
  }

  async function readSource(input: ContentImportInput): Promise<ImportBundle> {
    const { limits, policy } = deps();
    const url = input.sealedUrl ? (await deps().secrets()).open(input.sealedUrl, sealContext(input.spaceId)) : input.url;
    switch (input.source) {
      case 'markdown': {
        const fetched = await download(url, 'document', 'text/markdown,text/plain,*/*');
        const file = readPageFile(asText(fetched.body));
        const markdown = absolutizeMarkdownUrls(file.body, fetched.url);
        const images = await webImages([markdown], new URL(fetched.url).origin);
        const page = {
          title: file.title ?? titleFromFileName(fileNameOf(fetched.url)),
          description: file.fields.description ?? null,
          markdown: images.rewrite(markdown),
          children: [],
        };
        return { ...singlePage(page, images.files), totalResources: 1 + images.found };
      }
      case 'html': {
        const fetched = await download(url, 'document', 'text/html,application/xhtml+xml');
        const converted = htmlToMarkdown(asText(fetched.body), { baseUrl: fetched.url, mainContent: true });
        const images = await webImages([converted.body], new URL(fetched.url).origin);
        const page = {
          title: converted.title ?? titleFromFileName(fileNameOf(fetched.url)),
          markdown: images.rewrite(converted.body),
          children: [],
        };
        return { ...singlePage(page, images.files), totalResources: 1 + images.found };
      }
      case 'zip': {
        const fetched = await download(url, 'archive');
        beat({ stage: 'unpacking', bytes: fetched.body.length });
        const files = await parseBounded(UNZIP, [fetched.body, zipLimits(limits)], {
          what: 'The archive',
          invalid: 'INVALID_ARCHIVE',
          stage: 'unpacking',
          ...parseBounds(false),
        });
        return folderBundle(files, false);
      }
      case 'docx':
        return docx(url);
      case 'website':
        return crawl(url);
      case 'github-wiki': {
        const repository = wikiRepositoryUrl(url);
        if (repository === null)
          throw new ImportInputError('INVALID_URL', `${input.url} is not a wiki: give the wiki's URL (…/wiki) or its git URL (….wiki.git)`);
        const dir = await mkdtemp(join(tmpdir(), 'content-import-'));
        try {
          await guardedClone(repository, join(dir, 'wiki'), policy, {
            timeoutMs: limits.timeoutMs,
            maxBytes: limits.maxBytes,
            onProgress: (bytes) => beat({ stage: 'cloning', bytes }),
          });
          return folderBundle(await readTree(join(dir, 'wiki'), limits), true);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
  }

  return {
    /**
     * Reads the source: fetches, unpacks or crawls it, converts documents to markdown and stores
     * the files pages use. Returns the hash of the stored bundle, or why the source cannot be read
     * (not retried: the source is the caller's to fix). Safe to retry: blobs are content-addressed.
     */
    async readContentImport(input: ContentImportInput): Promise<ReadOutcome> {
      let bundle: ImportBundle;
      try {
        bundle = await readSource(input);
      } catch (error) {
        if (error instanceof FetchError) return { status: 'failed', code: error.code, message: error.message };
        if (error instanceof CloneError) return { status: 'failed', code: error.code, message: error.message };
        if (error instanceof ImportInputError) return { status: 'failed', code: error.code, message: error.message };
        throw error;
      }
      const pages = Object.keys(bundle.pages).length;
      if (pages === 0) return { status: 'failed', code: 'NO_CONTENT', message: `Nothing to import was found at ${input.url}` };
      const tooDeep = pageDepthProblem(bundle.pages);
      if (tooDeep) return { status: 'failed', code: 'TOO_DEEP', message: `The content nests its pages too deeply: ${tooDeep}` };
      const sha = await deps().blobs.put(Buffer.from(JSON.stringify(bundle), 'utf8'));
      beat({ stage: 'read', pages, files: bundle.files.length });
      return { status: 'read', bundle: sha, pages, files: bundle.files.length };
    },

    /**
     * Writes the read content as one new revision (id chosen by the API) on the space or change
     * request, in one transaction. Idempotent: a retry after the write returns that revision.
     */
    async applyContentImport(input: ContentImportInput & { bundle: string }): Promise<ContentImportOutcome> {
      const raw = await deps().blobs.get(input.bundle);
      if (!raw) throw new Error(`The import bundle ${input.bundle} is missing from the blob store`);
      const bundle = JSON.parse(raw.toString('utf8')) as ImportBundle;
      const imported = Object.keys(bundle.pages).length + bundle.files.length;
      const done = {
        status: 'imported' as const,
        revision: input.revisionId,
        importedResources: imported,
        totalResources: Math.max(imported, bundle.totalResources),
      };
      return orm.em.fork().transactional(async (em): Promise<ContentImportOutcome> => {
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
        if (target.change_request_id === null)
          await syncSearchIndex(em, input.spaceId, { from: target.revision_id, before: existing, after: pages });
        return done;
      });
    },
  };
}

export type ContentImportActivities = ReturnType<typeof contentImportActivities>;
