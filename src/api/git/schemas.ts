import { Type } from 'typebox';
import { Id, Timestamp } from '../schemas.ts';

export const GitSpaceParams = Type.Object({ spaceId: Id });

const GitRef = Type.String({ minLength: 6, maxLength: 255, pattern: '^refs/[^\\s:~^?*\\[\\\\]+$', description: 'refs/heads/<branch>' });
const RemoteUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL of the repository; may carry basic-auth credentials',
});
const GitInfoInput = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 64 })),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
});

const common = {
  url: RemoteUrl,
  ref: GitRef,
  repoCacheID: Type.Optional(Type.String({ maxLength: 255 })),
  repoTreeURL: Type.Optional(Type.String({ maxLength: 2048 })),
  repoCommitURL: Type.Optional(Type.String({ maxLength: 2048 })),
  repoProjectDirectory: Type.Optional(Type.String({ maxLength: 1024 })),
  timestamp: Type.Optional(Timestamp),
  force: Type.Optional(Type.Boolean()),
  gitInfo: Type.Optional(GitInfoInput),
};

export const ImportGitBody = Type.Object({ ...common, standalone: Type.Optional(Type.Boolean()) });
export const ExportGitBody = Type.Object({ ...common, commitMessage: Type.String({ minLength: 1, maxLength: 10_000 }) });

/** GitBook's GitSyncState of the space, with the branch, the last sync's outcome and the push webhook. */
export const GitInfo = Type.Object({
  installationId: Type.String(),
  installationProvider: Type.Union([Type.Literal('github'), Type.Literal('gitlab'), Type.Literal('github-legacy')]),
  installationStatus: Type.Union([Type.Literal('unauthenticated'), Type.Literal('active'), Type.Literal('pending')]),
  repoName: Type.String(),
  integration: Type.String(),
  url: Type.String(),
  updatedAt: Timestamp,
  ref: Type.Optional(Type.String()),
  status: Type.String({ description: 'idle, ok, failed or conflict' }),
  lastSyncedCommit: Type.Optional(Type.String()),
  lastOperation: Type.Optional(Type.String()),
  lastSyncError: Type.Optional(Type.Object({ code: Type.String(), message: Type.String(), at: Timestamp })),
  conflictChangeRequest: Type.Optional(Type.String()),
  webhook: Type.Optional(Type.Object({ provider: Type.String(), repository: Type.String(), branch: Type.String(), url: Type.String() })),
});

export const WebhookBody = Type.Object({
  provider: Type.Union([Type.Literal('github'), Type.Literal('gitlab')]),
  url: RemoteUrl,
  branch: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s:~^?*\\[\\\\]+$' }),
  secret: Type.String({ minLength: 16, maxLength: 256 }),
});

export const WebhookConfig = Type.Object({
  provider: Type.String(),
  repository: Type.String(),
  branch: Type.String(),
  url: Type.String({ description: "Where to point the repository host's push webhook" }),
});

export const WebhookHeaders = Type.Object({
  'x-hub-signature-256': Type.Optional(Type.String({ maxLength: 200 })),
  'x-github-event': Type.Optional(Type.String({ maxLength: 100 })),
  'x-github-delivery': Type.Optional(Type.String({ maxLength: 200 })),
  'x-gitlab-token': Type.Optional(Type.String({ maxLength: 300 })),
  'x-gitlab-event': Type.Optional(Type.String({ maxLength: 100 })),
  'x-gitlab-event-uuid': Type.Optional(Type.String({ maxLength: 200 })),
});

export const WebhookAnswer = Type.Object({ status: Type.String(), requestId: Type.Optional(Type.String()) });
