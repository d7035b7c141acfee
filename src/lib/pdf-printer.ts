import { chromium, type Browser } from 'playwright-core';
import { lapTimer } from './lap-timer.ts';

/**
 * Prints HTML to PDF with headless Chromium (the system's, never a downloaded one), through
 * playwright-core.
 *
 * One browser per process, launched on first use and shared by every print (each print gets a
 * context of its own, closed afterwards); it is closed after some idle time and by
 * `closePdfPrinter()` when the worker stops. At most `MAX_CONCURRENT_PRINTS` prints run at once.
 *
 * What is printed may be user content, so the page can reach nothing: JavaScript is off, the
 * context is offline, and every request the page would make (http, https, ws, …) is aborted by
 * route interception before it leaves the browser. Background networking of the browser itself
 * is disabled by its flags.
 */

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

const MAX_CONCURRENT_PRINTS = 2;
const IDLE_CLOSE_MS = 5 * 60_000;

export interface PrintOptions {
  /** Path of the Chromium binary (CHROMIUM_PATH). */
  executablePath: string;
  /** Called every few seconds while printing, e.g. to heartbeat an activity. */
  onProgress?: (stage: string) => void;
  /** Deadline for one print. */
  timeoutMs?: number;
}

export interface PrintResult {
  pdf: Buffer;
  /** Requests the page attempted and that were refused (none for sanitized content). */
  blockedRequests: number;
  /** Whether this print launched the browser. */
  launched: boolean;
  /**
   * Where the print's time went, in milliseconds: waiting for a print slot, readying the browser
   * and a blank page (a context of its own), loading the HTML into it, printing, closing the context.
   */
  timings: { waitMs: number; prepareMs: number; contentMs: number; printMs: number; closeMs: number };
}

let browser: Promise<Browser> | undefined;
let browserPath: string | undefined;
let idleTimer: NodeJS.Timeout | undefined;
let active = 0;
const waiting: (() => void)[] = [];

async function sharedBrowser(executablePath: string): Promise<{ browser: Browser; launched: boolean }> {
  if (browser && browserPath === executablePath) {
    const current = await browser.catch(() => undefined);
    if (current?.isConnected()) return { browser: current, launched: false };
  }
  browserPath = executablePath;
  const launching = chromium.launch({
    executablePath,
    args: CHROMIUM_ARGS,
    // The worker decides when to stop; the browser is closed by closePdfPrinter (and killed on exit).
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  browser = launching;
  launching.then(
    (b) =>
      b.on('disconnected', () => {
        if (browser === launching) browser = undefined;
      }),
    () => {
      if (browser === launching) browser = undefined;
    },
  );
  return { browser: await launching, launched: true };
}

async function acquire(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (active < MAX_CONCURRENT_PRINTS) {
    active++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) return next();
  active--;
  if (active === 0) {
    idleTimer = setTimeout(() => void closePdfPrinter(), IDLE_CLOSE_MS);
    idleTimer.unref();
  }
}

/** Prints a complete HTML document to an A4 PDF with page numbers in the footer. */
export async function printPdf(html: string, options: PrintOptions): Promise<PrintResult> {
  const timeout = options.timeoutMs ?? 90_000;
  const progress = options.onProgress ?? (() => {});
  progress('waiting');
  const ticker = setInterval(() => progress('printing'), 5_000);
  const since = lapTimer();
  await acquire();
  try {
    const waitMs = since();
    progress('launching');
    const { browser: shared, launched } = await sharedBrowser(options.executablePath);
    const context = await shared.newContext({ javaScriptEnabled: false, offline: true, serviceWorkers: 'block', acceptDownloads: false });
    let blockedRequests = 0;
    try {
      context.setDefaultTimeout(timeout);
      await context.route('**/*', (route) => {
        blockedRequests++;
        return route.abort('blockedbyclient');
      });
      await context.routeWebSocket(/.*/, (ws) => ws.close());
      const page = await context.newPage();
      const prepareMs = since();
      progress('loading');
      await page.setContent(html, { waitUntil: 'load', timeout });
      await page.emulateMedia({ media: 'print' });
      const contentMs = since();
      progress('printing');
      const pdf = await page.pdf({
        format: 'A4',
        printBackground: true,
        displayHeaderFooter: true,
        headerTemplate: '<span></span>',
        footerTemplate:
          '<div style="font-size:8px;color:#59636e;width:100%;text-align:center;"><span class="pageNumber"></span> / <span class="totalPages"></span></div>',
        margin: { top: '16mm', bottom: '18mm', left: '16mm', right: '16mm' },
        outline: true,
        tagged: true,
      });
      const printMs = since();
      await context.close().catch(() => {});
      return { pdf, blockedRequests, launched, timings: { waitMs, prepareMs, contentMs, printMs, closeMs: since() } };
    } finally {
      await context.close().catch(() => {});
    }
  } finally {
    clearInterval(ticker);
    release();
  }
}

/** Closes the shared browser, if one is running (the worker calls this when it stops). */
export async function closePdfPrinter(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  const current = browser;
  browser = undefined;
  if (!current) return;
  const b = await current.catch(() => undefined);
  await b?.close().catch(() => {});
}
