import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closePdfPrinter, printPdf } from '../../src/lib/pdf-printer.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

afterAll(() => closePdfPrinter());

describe('PDF printer', () => {
  it('prints HTML to PDF and never lets the page reach the network, even for unsanitized HTML', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end('x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const html = `<!doctype html><html><head><title>Leaky</title><link rel="stylesheet" href="${origin}/a.css"></head>
        <body><h1>Printed</h1><img src="${origin}/x.png"><iframe src="${origin}/frame"></iframe>
        <p style="background:url(${origin}/bg.png)">text</p><script>fetch('${origin}/script')</script></body></html>`;
      const first = await printPdf(html, { executablePath });
      expect(first.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(first.blockedRequests).toBeGreaterThanOrEqual(2);
      // Where the print's time went.
      expect(Object.keys(first.timings).sort()).toEqual(['closeMs', 'contentMs', 'prepareMs', 'printMs', 'waitMs']);
      for (const ms of Object.values(first.timings)) expect(Number.isInteger(ms) && ms >= 0).toBe(true);
      expect(hits).toBe(0);
      // The browser is shared: the next print reuses it.
      const second = await printPdf('<p>again</p>', { executablePath });
      expect(second.launched).toBe(false);
      expect(second.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    } finally {
      server.close();
    }
  });

  it('relaunches after the browser was closed, and runs concurrent prints', async () => {
    await closePdfPrinter();
    const prints = await Promise.all([1, 2, 3].map((n) => printPdf(`<p>print ${n}</p>`, { executablePath })));
    expect(prints.filter((p) => p.launched)).toHaveLength(1);
    for (const p of prints) expect(p.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});
