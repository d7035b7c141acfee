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
  };
}
export type Urls = ReturnType<typeof urlsFor>;
