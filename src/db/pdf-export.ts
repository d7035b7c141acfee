import { db } from './kysely.ts';
import type { Em } from './orm.ts';

/**
 * PDFs printed from change requests (table `pdf_export`) and from spaces' current content (table
 * `space_pdf_export`): written by the pdf-export activities, read by the PDF routes.
 */

/** One printed PDF of a change request's content (or the space's, `changeRequestId` null): which revision, and the whole content or one page. */
export interface PdfExportKey {
  spaceId: string;
  changeRequestId: string | null;
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
  const row =
    key.changeRequestId === null
      ? await db(em)
          .selectFrom('space_pdf_export')
          .select(['sha256', 'size', 'page_count'])
          .where('space_id', '=', key.spaceId)
          .where('revision_id', '=', key.revisionId)
          .where('only_page', '=', key.only)
          .where('page_id', '=', key.pageId ?? '')
          .executeTakeFirst()
      : await db(em)
          .selectFrom('pdf_export')
          .select(['sha256', 'size', 'page_count'])
          .where('change_request_id', '=', key.changeRequestId)
          .where('revision_id', '=', key.revisionId)
          .where('only_page', '=', key.only)
          .where('page_id', '=', key.pageId ?? '')
          .where('space_id', '=', key.spaceId)
          .executeTakeFirst();
  return row && { sha256: row.sha256, size: Number(row.size), pageCount: row.page_count };
}

/** What the title page of a change request's PDF shows. */
export async function loadPrintHeading(
  em: Em,
  spaceId: string,
  changeRequestId: string,
): Promise<{ number: number; subject: string; spaceTitle: string } | undefined> {
  return db(em)
    .selectFrom('change_request as cr')
    .innerJoin('space as s', 's.id', 'cr.space_id')
    .select(['cr.number', 'cr.subject', 's.title as spaceTitle'])
    .where('cr.id', '=', changeRequestId)
    .where('cr.space_id', '=', spaceId)
    .executeTakeFirst();
}

/** What the title page of a space's PDF shows: the space's title (undefined once the space is deleted). */
export async function loadSpacePrintHeading(em: Em, spaceId: string): Promise<{ spaceTitle: string } | undefined> {
  return db(em)
    .selectFrom('space')
    .select(['title as spaceTitle'])
    .where('id', '=', spaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function revisionExists(em: Em, spaceId: string, revisionId: string): Promise<boolean> {
  const row = await db(em)
    .selectFrom('revision')
    .select('id')
    .where('id', '=', revisionId)
    .where('space_id', '=', spaceId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Records a printed PDF. A row whose bytes were lost (`replacing`, the sha256 recorded before) is
 * replaced; a row another run recorded meanwhile wins. Read the row again for what is recorded.
 */
export async function recordPdfExport(em: Em, key: PdfExportKey, pdf: PdfExportRow, replacing: string | null): Promise<void> {
  const values = {
    space_id: key.spaceId,
    revision_id: key.revisionId,
    only_page: key.only,
    page_id: key.pageId ?? '',
    sha256: pdf.sha256,
    size: String(pdf.size),
    page_count: pdf.pageCount,
    created_at: new Date(),
  };
  if (key.changeRequestId === null) {
    await db(em)
      .insertInto('space_pdf_export')
      .values(values)
      .onConflict((oc) => {
        const conflict = oc.columns(['space_id', 'revision_id', 'only_page', 'page_id']);
        if (replacing === null) return conflict.doNothing();
        return conflict
          .doUpdateSet((eb) => ({
            sha256: eb.ref('excluded.sha256'),
            size: eb.ref('excluded.size'),
            page_count: eb.ref('excluded.page_count'),
            created_at: eb.ref('excluded.created_at'),
          }))
          .where('space_pdf_export.sha256', '=', replacing);
      })
      .execute();
    return;
  }
  await db(em)
    .insertInto('pdf_export')
    .values({ ...values, change_request_id: key.changeRequestId })
    .onConflict((oc) => {
      const conflict = oc.columns(['change_request_id', 'revision_id', 'only_page', 'page_id']);
      // Nothing to replace: the row already recorded stays as it is.
      if (replacing === null) return conflict.doNothing();
      return conflict
        .doUpdateSet((eb) => ({
          sha256: eb.ref('excluded.sha256'),
          size: eb.ref('excluded.size'),
          page_count: eb.ref('excluded.page_count'),
          created_at: eb.ref('excluded.created_at'),
        }))
        .where('pdf_export.sha256', '=', replacing);
    })
    .execute();
}

/** What a PDF was last printed from: a change request (its number and subject) or a space (its title). */
export type PdfSource = { kind: 'change-request'; number: number; subject: string } | { kind: 'space'; title: string };

/** What a PDF was last printed from (a change request's or a space's content), unless its space is deleted. */
export async function pdfSource(em: Em, sha256: string): Promise<PdfSource | undefined> {
  const [fromChangeRequest, fromSpace] = await Promise.all([
    db(em)
      .selectFrom('pdf_export as p')
      .innerJoin('change_request as cr', 'cr.id', 'p.change_request_id')
      .innerJoin('space as s', (join) => join.onRef('s.id', '=', 'p.space_id').on('s.deleted_at', 'is', null))
      .select(['cr.number', 'cr.subject', 'p.created_at'])
      .where('p.sha256', '=', sha256)
      .orderBy('p.created_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
    db(em)
      .selectFrom('space_pdf_export as p')
      .innerJoin('space as s', (join) => join.onRef('s.id', '=', 'p.space_id').on('s.deleted_at', 'is', null))
      .select(['s.title', 'p.created_at'])
      .where('p.sha256', '=', sha256)
      .orderBy('p.created_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  const crFirst = fromChangeRequest && (!fromSpace || new Date(fromChangeRequest.created_at) >= new Date(fromSpace.created_at));
  if (crFirst) return { kind: 'change-request', number: fromChangeRequest.number, subject: fromChangeRequest.subject };
  return fromSpace ? { kind: 'space', title: fromSpace.title } : undefined;
}
