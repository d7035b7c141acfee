import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { strToU8, zipSync } from 'fflate';

/**
 * Sources for content-import tests, served over HTTP on 127.0.0.1 (the worker reaches them through
 * FETCH_ALLOW_HOSTS=127.0.0.1, set by scripts/test.ts): documents, archives, a small website (with
 * slow pages), and git repositories over smart HTTP from `git http-backend`, behind basic auth.
 */

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface Served {
  body: string | Uint8Array;
  type: string;
  delayMs?: number;
  status?: number;
  headers?: Record<string, string>;
}

/** A zip of the given files (path → text or bytes). */
export function zipOf(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const [path, content] of Object.entries(files)) entries[path] = typeof content === 'string' ? strToU8(content) : content;
  return zipSync(entries);
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal .docx (WordprocessingML in a zip): a Heading1 title, paragraphs (the first bold), and one inline PNG. */
export function docxOf(doc: { title: string; paragraphs: string[]; image?: Uint8Array }): Uint8Array {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const paragraphs = [
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>${xmlEscape(doc.title)}</w:t></w:r></w:p>`,
    ...doc.paragraphs.map((p, i) =>
      i === 0
        ? `<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`
        : `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`,
    ),
  ];
  if (doc.image) {
    paragraphs.push(`<w:p><w:r><w:drawing><wp:inline><wp:extent cx="9525" cy="9525"/><wp:docPr id="1" name="Picture 1" descr="A dot"/>
<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="dot.png" descr="A dot"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:embed="rIdImage1"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`);
  }
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">
<w:body>${paragraphs.join('')}</w:body></w:document>`;
  const files: Record<string, string | Uint8Array> = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Default Extension="png" ContentType="image/png"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
${doc.image ? '<Relationship Id="rIdImage1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/>' : ''}
</Relationships>`,
    'word/document.xml': document,
  };
  if (doc.image) files['word/media/image1.png'] = doc.image;
  return zipOf(files);
}

/** A bare git repository under `root` (`<name>.git`) holding `files` in one commit on `main`. */
export function gitRepository(root: string, name: string, files: Record<string, string | Uint8Array>): string {
  const work = mkdtempSync(join(tmpdir(), 'import-repo-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: work,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 't@example.com',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'wiki');
  const bare = join(root, `${name}.git`);
  execFileSync('git', ['clone', '-q', '--bare', work, bare], { stdio: 'ignore' });
  rmSync(work, { recursive: true, force: true });
  return bare;
}

export interface ImportFixtures {
  base: string;
  /** Port of the server, to build URLs with other host names (`localhost`). */
  port: number;
  /** Path → what it serves; change it freely between tests. */
  routes: Map<string, Served>;
  /** Where `git http-backend` finds repositories (served under `/git/`). */
  gitRoot: string;
  /** Requests received, by path (to check what was fetched). */
  hits: string[];
  close(): Promise<void>;
}

export const GIT_USER = 'wiki-reader';
export const GIT_PASSWORD = 's3cret!pass';

/** `git http-backend` as CGI: the request body on stdin, a CGI response on stdout. */
function gitBackend(gitRoot: string, request: IncomingMessage, response: ServerResponse, pathInfo: string): void {
  const url = new URL(request.url ?? '/', 'http://x');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: gitRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: pathInfo,
      REQUEST_METHOD: request.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      REMOTE_USER: GIT_USER,
      REMOTE_ADDR: '127.0.0.1',
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
    },
  });
  request.pipe(child.stdin);
  let buffer = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    buffer = Buffer.concat([buffer, chunk]);
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    for (const line of buffer.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(buffer.subarray(end + 4));
  });
  child.stdout.on('end', () => response.end());
  child.on('error', () => response.destroy());
}

export async function startImportFixtures(): Promise<ImportFixtures> {
  const routes = new Map<string, Served>();
  const hits: string[] = [];
  const gitRoot = mkdtempSync(join(tmpdir(), 'import-git-'));
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.push(path);
    if (path.startsWith('/git/')) {
      const auth = request.headers.authorization ?? '';
      const expected = `Basic ${Buffer.from(`${GIT_USER}:${GIT_PASSWORD}`).toString('base64')}`;
      if (auth !== expected) {
        response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('authentication required');
        return;
      }
      gitBackend(gitRoot, request, response, path.slice('/git'.length));
      return;
    }
    const served = routes.get(path);
    if (!served) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const send = () => response.writeHead(served.status ?? 200, { 'content-type': served.type, ...served.headers }).end(served.body);
    if (served.delayMs) setTimeout(send, served.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    routes,
    gitRoot,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
