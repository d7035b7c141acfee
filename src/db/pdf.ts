import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** PDFs printed from change requests (table `pdf_export`, written by the pdf-export activities). */

/** The PDF already recorded for this change request revision and these options, if any. */
export async function recordedPdf(em: Em, changeRequestId: string, revisionId: string, only: boolean, pageId: string | null): Promise<string | undefined> {
  const rows = await sql<{ sha256: string }>(
    em,
    'select sha256 from pdf_export where change_request_id = ? and revision_id = ? and only_page = ? and page_id = ?',
    [changeRequestId, revisionId, only, pageId ?? ''],
  );
  return rows[0]?.sha256;
}

/** The change request a PDF was last printed from (number and subject name the download), unless its space is deleted. */
export async function pdfSource(em: Em, sha256: string): Promise<{ number: number; subject: string } | undefined> {
  const rows = await sql<{ number: number; subject: string }>(
    em,
    `select cr.number, cr.subject
       from pdf_export p
       join change_request cr on cr.id = p.change_request_id
       join space s on s.id = p.space_id and s.deleted_at is null
      where p.sha256 = ?
      order by p.created_at desc
      limit 1`,
    [sha256],
  );
  return rows[0];
}
