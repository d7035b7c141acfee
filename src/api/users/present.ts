import type { Caller } from '../context.ts';
import type { Urls } from '../object-urls.ts';

export function presentUser(user: Caller['user'], urls: Urls) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
    urls: urls.user(user.id),
  };
}
