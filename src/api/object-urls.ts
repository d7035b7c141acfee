import { signPath, verifySignedPath, type Verdict } from '../lib/signed-urls.ts';

/** Absolute URLs of every object, from PUBLIC_URL. One place, so every `urls` field agrees. */
export function urlsFor(publicUrl: string) {
  return {
    user: (id: string) => ({ location: `${publicUrl}/v1/users/${id}` }),
    organization: (id: string) => ({
      location: `${publicUrl}/v1/orgs/${id}`,
      app: `${publicUrl}/o/${id}`,
    }),
    collection: (id: string) => ({
      location: `${publicUrl}/v1/collections/${id}`,
      app: `${publicUrl}/app/collections/${id}`,
    }),
    space: (id: string) => ({
      location: `${publicUrl}/v1/spaces/${id}`,
      app: `${publicUrl}/app/spaces/${id}`,
    }),
    /** A comment on a space's content, or inside a change request when `changeRequestId` is given. */
    comment: (spaceId: string, commentId: string, changeRequestId?: string | null) => ({
      location: `${publicUrl}/v1/spaces/${spaceId}${changeRequestId ? `/change-requests/${changeRequestId}` : ''}/comments/${commentId}`,
    }),
    commentReply: (spaceId: string, commentId: string, replyId: string, changeRequestId?: string | null) => ({
      location: `${publicUrl}/v1/spaces/${spaceId}${changeRequestId ? `/change-requests/${changeRequestId}` : ''}/comments/${commentId}/replies/${replyId}`,
    }),
    openapiSpec: (organizationId: string, slug: string) => ({
      location: `${publicUrl}/v1/orgs/${organizationId}/openapi/${slug}`,
      app: `${publicUrl}/o/${organizationId}/openapi/${slug}`,
    }),
    openapiSpecVersion: (organizationId: string, slug: string, id: string) => ({
      location: `${publicUrl}/v1/orgs/${organizationId}/openapi/${slug}/versions/${id}`,
    }),
    customField: (organizationId: string, name: string) => ({ location: `${publicUrl}/v1/orgs/${organizationId}/custom-fields/${name}` }),
    translation: (organizationId: string, id: string) => ({ location: `${publicUrl}/v1/orgs/${organizationId}/translations/${id}` }),
    /** publicEndpoint: any request under it is a `fetch` event for the integration's script (api/integrations/public-endpoints.ts). */
    integration: (name: string) => ({
      location: `${publicUrl}/v1/integrations/${name}`,
      app: `${publicUrl}/app/integrations/${name}`,
      assets: `${publicUrl}/v1/integrations/${name}/assets/`,
      publicEndpoint: `${publicUrl}/v1/integrations/${name}/integration`,
      publicContentEndpoint: `${publicUrl}/v1/integrations/${name}/integration`,
    }),
    installation: (name: string, id: string) => ({
      location: `${publicUrl}/v1/integrations/${name}/installations/${id}`,
      app: `${publicUrl}/app/integrations/${name}/installations/${id}`,
      publicEndpoint: `${publicUrl}/v1/integrations/${name}/installations/${id}/integration`,
      publicContentEndpoint: `${publicUrl}/v1/integrations/${name}/installations/${id}/integration`,
    }),
    /** Where a site's visitor signs in through an installation (`fetch_visitor_authentication`, api/integrations/public-endpoints.ts). */
    siteVisitorAuth: (name: string, installationId: string, siteId: string) =>
      `${publicUrl}/v1/integrations/${name}/installations/${installationId}/sites/${siteId}/visitor-auth`,
    /** The script an installation injects in a site's pages (`fetch_published_script`, api/integrations/public-endpoints.ts). */
    siteScript: (name: string, installationId: string, siteId: string) =>
      `${publicUrl}/v1/integrations/${name}/installations/${installationId}/sites/${siteId}/script.js`,
    samlProvider: (organizationId: string, id: string) => ({ location: `${publicUrl}/v1/orgs/${organizationId}/saml/${id}` }),
    /** What an identity provider is given: this service's entity ID (serves its metadata), ACS and start URLs. */
    samlService: (id: string) => ({
      acsURL: `${publicUrl}/sso/saml/${id}/acs`,
      startURL: `${publicUrl}/sso/saml/${id}/start`,
      entityID: `${publicUrl}/sso/saml/${id}`,
    }),
  };
}
export type Urls = ReturnType<typeof urlsFor>;

/**
 * Links to a file's bytes that a browser loads with no header: the answers a site visitor's token
 * reads carry these as `downloadURL`. The link names the space, file and revision, expires, and is
 * signed (HMAC, lib/signed-urls.ts, a key of its own derived from SECRETS_KEY). The route that
 * serves it (`GET /files/{spaceId}/{fileId}/download`) lives outside /v1, like PDF links, since
 * every /v1 operation needs a bearer token; it redirects to the blob store's own presigned URL
 * when the store serves downloads itself (`BLOB_STORE=s3`).
 */
export const FILE_URL_TTL_SECONDS = 3600;
/** Expiries are rounded up to this step, so a file's link is the same for a while (cacheable). */
const FILE_URL_EXPIRY_STEP_SECONDS = 600;

export interface FileRef {
  spaceId: string;
  revisionId: string;
  fileId: string;
}

const filePath = (ref: Pick<FileRef, 'spaceId' | 'fileId'>) =>
  `/files/${encodeURIComponent(ref.spaceId)}/${encodeURIComponent(ref.fileId)}/download`;
const signedPart = (ref: FileRef) => `${filePath(ref)}?revision=${encodeURIComponent(ref.revisionId)}`;

/** When links signed at `nowSeconds` expire: the same for every link signed in one step. */
export function signedFileUrlExpiry(nowSeconds: number): number {
  const step = FILE_URL_EXPIRY_STEP_SECONDS;
  return Math.ceil((nowSeconds + FILE_URL_TTL_SECONDS) / step) * step;
}

/** The signed links of one revision's files, valid for about FILE_URL_TTL_SECONDS from `nowSeconds`. */
export function signedFileUrls(key: Buffer, publicUrl: string, spaceId: string, revisionId: string, nowSeconds: number) {
  const expires = signedFileUrlExpiry(nowSeconds);
  return (fileId: string) => {
    const ref = { spaceId, revisionId, fileId };
    const signature = signPath(key, signedPart(ref), expires);
    return `${publicUrl}${filePath(ref)}?revision=${encodeURIComponent(revisionId)}&expires=${expires}&signature=${signature}`;
  };
}

/** Whether a signed file link is genuine and still valid. */
export function verifyFileUrl(key: Buffer, ref: FileRef, expires: number, signature: string, nowSeconds: number): Verdict {
  return verifySignedPath(key, signedPart(ref), expires, signature, nowSeconds);
}
