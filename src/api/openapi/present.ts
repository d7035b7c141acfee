import type { OpenApiSpec, OpenApiSpecVersion } from '../../db/openapi.ts';
import { filesystemEntries } from '../../domain/openapi-filesystem.ts';
import type { ProcessErrorCode, ProcessingState } from '../../domain/openapi.ts';
import { atLeast, organizationPermissions, type Role } from '../../domain/roles.ts';
import { redactUrl } from '../../lib/guarded-fetch.ts';
import type { Urls } from '../object-urls.ts';

export function presentSpec(spec: OpenApiSpec, role: Role | null, urls: Urls) {
  const errors = spec.lastProcessErrors ?? [];
  return {
    object: 'openapi-spec' as const,
    id: spec.id,
    createdAt: spec.createdAt.toISOString(),
    updatedAt: spec.updatedAt.toISOString(),
    slug: spec.slug,
    ...(spec.sourceUrl ? { sourceURL: redactUrl(spec.sourceUrl) } : {}),
    processingState: spec.processingState as ProcessingState,
    ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
    ...(spec.lastProcessedAt ? { lastProcessedAt: spec.lastProcessedAt.toISOString() } : {}),
    ...(spec.lastProcessErrorCode ? { lastProcessErrorCode: spec.lastProcessErrorCode as ProcessErrorCode } : {}),
    lastProcessedErrors: errors,
    lastProcessedErrorCount: errors.length,
    permissions: { view: atLeast(role, 'read'), edit: organizationPermissions(role).createOpenAPISpec },
    urls: urls.openapiSpec(spec.organizationId, spec.slug),
  };
}

/** The URL of a version: its source URL, or for a text source the API address of its content. */
export function versionUrl(spec: OpenApiSpec, version: OpenApiSpecVersion, urls: Urls): string {
  return version.url ?? `${urls.openapiSpecVersion(spec.organizationId, spec.slug, version.id).location}/content`;
}

export function presentVersion(spec: OpenApiSpec, version: OpenApiSpecVersion, urls: Urls) {
  return {
    object: 'openapi-spec-version' as const,
    id: version.id,
    createdAt: version.createdAt.toISOString(),
    url: versionUrl(spec, version, urls),
    urls: urls.openapiSpecVersion(spec.organizationId, spec.slug, version.id),
  };
}

/**
 * The content of a version: its stored documents (JSON text, key → document) as the list of files
 * GitBook's renderer reads, the entry document first (see domain/openapi-filesystem.ts).
 */
export function presentContent(spec: OpenApiSpec, version: OpenApiSpecVersion, filesystem: string, urls: Urls) {
  const url = versionUrl(spec, version, urls);
  const documents = JSON.parse(filesystem) as Record<string, unknown>;
  return { filesystem: filesystemEntries(documents, version.entryKey), url, urls: { source: url, public: null } };
}
