/**
 * Why a sync failed, in words a reader of `GET …/git/info` understands, from what the git CLI
 * printed. Pure. Messages never carry credentials: URLs in them are redacted by `redactText`.
 */

export const GIT_SYNC_ERROR_CODES = [
  'BAD_REF',
  'AUTH_REFUSED',
  'REPOSITORY_NOT_FOUND',
  'UNREACHABLE',
  'ADDRESS_NOT_ALLOWED',
  'INVALID_URL',
  'NOT_GITBOOK_LAYOUT',
  'INVALID_GITBOOK_YAML',
  'FILE_TOO_LARGE',
  'TOO_MANY_FILES',
  'MARKDOWN_TOO_LARGE',
  /** A file the layout needs whole (SUMMARY.md) passes a markdown limit (../content/limits.ts), named in the message. */
  'MARKDOWN_LIMIT',
  'PUSH_REJECTED',
  'TIMEOUT',
  'GIT_ERROR',
] as const;
export type GitSyncErrorCode = (typeof GIT_SYNC_ERROR_CODES)[number];

export class GitSyncError extends Error {
  readonly code: GitSyncErrorCode;
  constructor(code: GitSyncErrorCode, message: string) {
    super(message);
    this.name = 'GitSyncError';
    this.code = code;
  }
}

/** Replaces `user:password@` and `Authorization:` values in any text. */
export function redactText(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1***@').replace(/(authorization:\s*)(basic|bearer)?\s*\S+/gi, '$1***');
}

/** The failure a git command's stderr describes; `shownUrl` is the remote without credentials. */
export function classifyGitFailure(stderr: string, shownUrl: string, ref: string): GitSyncError {
  const text = redactText(stderr).trim();
  const last =
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-1)[0] ?? 'git failed';
  if (/couldn't find remote ref|invalid refspec|not a valid ref|unknown revision/i.test(text)) {
    return new GitSyncError('BAD_REF', `The ref ${ref} does not exist in ${shownUrl}`);
  }
  if (
    /Authentication failed|could not read Username|could not read Password|returned error: 40[13]|HTTP 40[13]|403 Forbidden|terminal prompts disabled/i.test(
      text,
    )
  ) {
    return new GitSyncError('AUTH_REFUSED', `${shownUrl} refused the credentials given (or none were given)`);
  }
  if (/repository '.*' not found|returned error: 404|HTTP 404|not appear to be a git repository/i.test(text)) {
    return new GitSyncError('REPOSITORY_NOT_FOUND', `No repository at ${shownUrl}`);
  }
  if (
    /Could not resolve host|Failed to connect|Connection refused|Connection timed out|Couldn't connect|Network is unreachable|No route to host|Empty reply/i.test(
      text,
    )
  ) {
    return new GitSyncError('UNREACHABLE', `${shownUrl} could not be reached: ${last.replace(/^fatal:\s*/, '')}`);
  }
  if (/Operation too slow|timed out/i.test(text)) return new GitSyncError('TIMEOUT', `${shownUrl} took too long to answer`);
  if (/\[rejected\]|non-fast-forward|fetch first|failed to push/i.test(text)) {
    return new GitSyncError(
      'PUSH_REJECTED',
      `${shownUrl} rejected the push to ${ref} (the branch moved on; export with force to overwrite it)`,
    );
  }
  if (/redirect/i.test(text)) return new GitSyncError('ADDRESS_NOT_ALLOWED', `${shownUrl} answered with a redirect, which is not followed`);
  return new GitSyncError('GIT_ERROR', `git failed for ${shownUrl}: ${last.replace(/^(fatal|error):\s*/, '')}`);
}

/** Short name of a repository from its URL (`owner/name`), and the provider its host suggests. */
export function describeRepository(url: string): { repoName: string; provider: string } {
  let path = url;
  let host = '';
  try {
    const u = new URL(url);
    path = u.pathname;
    host = u.hostname.toLowerCase();
  } catch {
    // keep the text as it is
  }
  const repoName = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '') || url;
  const provider = host.includes('github')
    ? 'github'
    : host.includes('gitlab')
      ? 'gitlab'
      : host.includes('bitbucket')
        ? 'bitbucket'
        : 'git';
  return { repoName, provider };
}
