import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** PDFs printed from change requests (table `pdf_export`): written by the pdf-export activities, read by the PDF routes. */

/** One printed PDF of a change request's content: which revision, and the whole content or one page. */
export interface PdfExportKey {
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
  only: boolean;
  /** Null: the whole content. */
  pageId: string | null;
}

export interface PdfExportRow {
  sha256: string;
  size: number;
  pageCount: number;
}

/** The PDF recorded for this key, if any (its bytes may have been lost since). */
export async function findPdfExport(em: Em, key: PdfExportKey): Promise<PdfExportRow | undefined> {
  const rows = await sql<{ sha256: string; size: string; page_count: number }>(
    em,
    'select sha256, size, page_count from pdf_export where change_request_id = ? and revision_id = ? and only_page = ? and page_id = ? and space_id = ?',
    [key.changeRequestId, key.revisionId, key.only, key.pageId ?? '', key.spaceId],
  );
  return rows[0] && { sha256: rows[0].sha256, size: Number(rows[0].size), pageCount: rows[0].page_count };
}

/** What the title page of a change request's PDF shows. */
export async function loadPrintHeading(
  em: Em,
  spaceId: string,
  changeRequestId: string,
): Promise<{ number: number; subject: string; spaceTitle: string } | undefined> {
  const rows = await sql<{ number: number; subject: string; space_title: string }>(
    em,
    `select cr.number, cr.subject, s.title as space_title
       from change_request cr join space s on s.id = cr.space_id
      where cr.id = ? and cr.space_id = ?`,
    [changeRequestId, spaceId],
  );
  return rows[0] && { number: rows[0].number, subject: rows[0].subject, spaceTitle: rows[0].space_title };
}

export async function revisionExists(em: Em, spaceId: string, revisionId: string): Promise<boolean> {
  return (await sql(em, 'select 1 from revision where id = ? and space_id = ?', [revisionId, spaceId])).length > 0;
}

/**
 * Records a printed PDF. A row whose bytes were lost (`replacing`, the sha256 recorded before) is
 * replaced; a row another run recorded meanwhile wins. Read the row again for what is recorded.
 */
export async function recordPdfExport(em: Em, key: PdfExportKey, pdf: PdfExportRow, replacing: string | null): Promise<void> {
  await sql(
    em,
    `insert into pdf_export (space_id, change_request_id, revision_id, only_page, page_id, sha256, size, page_count, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (change_request_id, revision_id, only_page, page_id)
     do update set sha256 = excluded.sha256, size = excluded.size, page_count = excluded.page_count, created_at = excluded.created_at
      where pdf_export.sha256 = ?`,
    [
      key.spaceId,
      key.changeRequestId,
      key.revisionId,
      key.only,
      key.pageId ?? '',
      pdf.sha256,
      pdf.size,
      pdf.pageCount,
      new Date(),
      replacing,
    ],
  );
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
