import { describe, expect, it } from '@jest/globals';
import { gitSyncInstallationStatus, gitSyncProvider, presentSpaceGitSync } from '../../../src/api/spaces/present.ts';
import { expectMatchesGitBookSchema } from '../../support/gitbook-openapi.ts';

describe('gitSync provider', () => {
  it('is GitHub for github.com and hosts named after GitHub', () => {
    expect(gitSyncProvider('https://github.com/acme/docs.git', null)).toBe('github');
    expect(gitSyncProvider('https://www.github.com/acme/docs', 'git')).toBe('github');
    expect(gitSyncProvider('https://github.acme.internal/acme/docs.git', null)).toBe('github');
  });

  it('is GitLab for gitlab.com and hosts named after GitLab', () => {
    expect(gitSyncProvider('https://gitlab.com/acme/docs.git', 'github')).toBe('gitlab');
    expect(gitSyncProvider('https://gitlab.acme.internal/group/docs.git', null)).toBe('gitlab');
  });

  it('is what the caller stated for another host when it is GitHub, GitLab otherwise', () => {
    expect(gitSyncProvider('https://git.acme.internal/docs.git', 'github')).toBe('github');
    expect(gitSyncProvider('https://git.acme.internal/docs.git', 'gitlab')).toBe('gitlab');
    expect(gitSyncProvider('https://bitbucket.org/acme/docs.git', 'bitbucket')).toBe('gitlab');
    expect(gitSyncProvider('http://127.0.0.1:9418/docs.git', 'git')).toBe('gitlab');
    expect(gitSyncProvider('not a url', null)).toBe('gitlab');
  });
});

describe('gitSync installation status', () => {
  const at = new Date('2026-01-01T00:00:00Z');
  const auth = { code: 'AUTH_REFUSED', message: 'refused', at: at.toISOString() };
  const unreachable = { code: 'UNREACHABLE', message: 'unreachable', at: at.toISOString() };

  it('is pending until a sync completes', () => {
    expect(gitSyncInstallationStatus({ status: 'idle', last_applied_at: null, last_sync_error: null })).toBe('pending');
    expect(gitSyncInstallationStatus({ status: 'failed', last_applied_at: null, last_sync_error: unreachable })).toBe('pending');
  });

  it('is active once a sync completed, also after a failure that is not about credentials', () => {
    expect(gitSyncInstallationStatus({ status: 'ok', last_applied_at: at, last_sync_error: null })).toBe('active');
    expect(gitSyncInstallationStatus({ status: 'failed', last_applied_at: at, last_sync_error: unreachable })).toBe('active');
  });

  it('is unauthenticated when the last sync failed on refused credentials, before or after a completed one', () => {
    expect(gitSyncInstallationStatus({ status: 'failed', last_applied_at: null, last_sync_error: auth })).toBe('unauthenticated');
    expect(gitSyncInstallationStatus({ status: 'failed', last_applied_at: at, last_sync_error: auth })).toBe('unauthenticated');
  });
});

describe('gitSync on a space', () => {
  it("is GitBook's GitSyncState", () => {
    const state = presentSpaceGitSync({
      space_id: 'space1',
      repo_name: 'acme/docs',
      provider: 'github',
      integration: null,
      url: 'https://github.com/acme/docs.git',
      updated_at: new Date('2026-01-01T00:00:00Z'),
      status: 'ok',
      last_applied_at: new Date('2026-01-01T00:00:00Z'),
      last_sync_error: null,
    });
    expect(state).toEqual({
      installationId: 'space1',
      installationProvider: 'github',
      installationStatus: 'active',
      repoName: 'acme/docs',
      url: 'https://github.com/acme/docs.git',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expectMatchesGitBookSchema('GitSyncState', state);
  });
});
