import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { MergeConflict } from '../domain/content/merge.ts';
import type { MergeBypass } from '../domain/merge-rules.ts';
import type { PageNode } from '../domain/content/tree.ts';

/** What `revision_page.meta` holds: a page's fields other than its place in the tree and its document. */
export type PageMeta = Omit<PageNode, 'id' | 'parentId' | 'position' | 'markdown'>;

/** Content: change requests, revisions with their pages and files, page documents, permissions, the search index and PDF exports. Rows are mapped here; the schema is owned by the migrations. */

export const ChangeRequest = defineEntity({
  name: 'ChangeRequest',
  tableName: 'change_request',
  properties: {
    id: p.string().primary(),
    spaceId: p.string(),
    number: p.integer(),
    status: p.string(),
    subject: p.string().defaultRaw("''::text"),
    createdBy: p.string().nullable(),
    /** The integration that opened it, with a token acting as one of its installations (createdBy is then null). */
    createdByIntegration: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
    revisionId: p.string(),
    revisionInitial: p.string(),
    revisionMergedAncestor: p.string().nullable(),
    revisionMerged: p.string().nullable(),
    mergedAt: p.datetime().nullable(),
    mergedBy: p.string().nullable(),
    conflicts: p.json<MergeConflict[]>().nullable(),
    description: p.string().defaultRaw("''::text"),
    /** Who merged past which unmet merge rules, when an admin did. */
    mergeBypass: p.json<MergeBypass>().nullable(),
  },
});
export type ChangeRequest = InferEntity<typeof ChangeRequest>;

export const Revision = defineEntity({
  name: 'Revision',
  tableName: 'revision',
  properties: {
    id: p.string().primary(),
    spaceId: p.string(),
    parents: p.array().defaultRaw("'{}'::text[]"),
    type: p.string().defaultRaw("'edits'::text"),
    createdAt: p.datetime().defaultRaw('now()'),
    changeRequestId: p.string().nullable(),
    git: p.json<unknown>().nullable(),
  },
});
export type Revision = InferEntity<typeof Revision>;

export const RevisionPage = defineEntity({
  name: 'RevisionPage',
  tableName: 'revision_page',
  properties: {
    revisionId: p.string().primary(),
    pageId: p.string().primary(),
    parentId: p.string().nullable(),
    position: p.string(),
    meta: p.json<PageMeta>(),
    documentHash: p.string(),
  },
});
export type RevisionPage = InferEntity<typeof RevisionPage>;

export const RevisionFile = defineEntity({
  name: 'RevisionFile',
  tableName: 'revision_file',
  properties: {
    revisionId: p.string().primary(),
    fileId: p.string().primary(),
    name: p.string(),
    contentType: p.string(),
    size: p.bigint('string'),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    sha256: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type RevisionFile = InferEntity<typeof RevisionFile>;

/** A revision's reusable content: its title, where it lives in a synced repository, and its text (a `page_document`). */
export const RevisionReusableContent = defineEntity({
  name: 'RevisionReusableContent',
  tableName: 'revision_reusable_content',
  properties: {
    revisionId: p.string().primary(),
    reusableContentId: p.string().primary(),
    title: p.string(),
    path: p.string().nullable(),
    documentHash: p.string(),
  },
});
export type RevisionReusableContent = InferEntity<typeof RevisionReusableContent>;

export const PageDocument = defineEntity({
  name: 'PageDocument',
  tableName: 'page_document',
  properties: {
    spaceId: p.string().primary(),
    hash: p.string().primary(),
    markdown: p.string(),
  },
});
export type PageDocument = InferEntity<typeof PageDocument>;

export const ContentPermission = defineEntity({
  name: 'ContentPermission',
  tableName: 'content_permission',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    spaceId: p.string().nullable(),
    collectionId: p.string().nullable(),
    userId: p.string().nullable(),
    teamId: p.string().nullable(),
    role: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type ContentPermission = InferEntity<typeof ContentPermission>;

export const SearchSection = defineEntity({
  name: 'SearchSection',
  tableName: 'search_section',
  properties: {
    spaceId: p.string().primary(),
    pageId: p.string().primary(),
    sectionId: p.string().primary(),
    pageTitle: p.string(),
    pagePath: p.string(),
    title: p.string(),
    body: p.string(),
    tsv: p.type('tsvector').columnType('tsvector').nullable(),
  },
});
export type SearchSection = InferEntity<typeof SearchSection>;

export const SearchState = defineEntity({
  name: 'SearchState',
  tableName: 'search_state',
  properties: {
    spaceId: p.string().primary(),
    revisionId: p.string().nullable(),
  },
});
export type SearchState = InferEntity<typeof SearchState>;

export const PdfExport = defineEntity({
  name: 'PdfExport',
  tableName: 'pdf_export',
  properties: {
    spaceId: p.string(),
    changeRequestId: p.string().primary(),
    revisionId: p.string().primary(),
    onlyPage: p.boolean().primary(),
    pageId: p.string().primary().defaultRaw("''::text"),
    sha256: p.string(),
    size: p.bigint('string'),
    pageCount: p.integer(),
    createdAt: p.datetime(),
  },
});
export type PdfExport = InferEntity<typeof PdfExport>;

export const SpacePdfExport = defineEntity({
  name: 'SpacePdfExport',
  tableName: 'space_pdf_export',
  properties: {
    spaceId: p.string().primary(),
    revisionId: p.string().primary(),
    onlyPage: p.boolean().primary(),
    pageId: p.string().primary().defaultRaw("''::text"),
    sha256: p.string(),
    size: p.bigint('string'),
    pageCount: p.integer(),
    createdAt: p.datetime(),
  },
});
export type SpacePdfExport = InferEntity<typeof SpacePdfExport>;

export const entities = [
  ChangeRequest,
  Revision,
  RevisionPage,
  RevisionFile,
  RevisionReusableContent,
  PageDocument,
  ContentPermission,
  SearchSection,
  SearchState,
  PdfExport,
  SpacePdfExport,
];
