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
    /** publicEndpoint: reserved for an integration runtime; scripts are stored, not run, so it answers 404 for now. */
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
