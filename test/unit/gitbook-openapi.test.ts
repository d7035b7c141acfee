import { describe, expect, it } from '@jest/globals';
import { expectMatchesGitBook, operationFor, operations, responseValidator } from '../support/gitbook-openapi.ts';

const NOW = '2024-05-01T12:00:00.000Z';

function space(): Record<string, any> {
  return {
    object: 'space',
    id: 'spc1',
    title: 'Handbook',
    emoji: '',
    organization: 'org1',
    visibility: 'private',
    revision: 'rev1',
    createdAt: NOW,
    updatedAt: NOW,
    comments: 0,
    changeRequests: 0,
    changeRequestsOpen: 0,
    changeRequestsDraft: 0,
    mergeRules: { type: 'inherit' },
    urls: { location: 'http://localhost:3000/v1/spaces/spc1', app: 'http://localhost:3000/s/spc1' },
    defaultLevel: 'inherit',
    permissions: {
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: true,
      triggerGitSync: false,
      comment: true,
      merge: false,
      review: false,
      installIntegration: false,
    },
  };
}

function organization(): Record<string, any> {
  return {
    object: 'organization',
    id: 'org1',
    plan: 'free',
    title: 'Acme',
    createdAt: NOW,
    inviteLinks: false,
    type: 'business',
    emailDomains: [],
    mergeRules: { type: 'none' },
    urls: { location: 'http://localhost:3000/v1/orgs/org1', app: 'http://localhost:3000/o/org1' },
    trial: { status: 'notapplicable', count: 0 },
    permissions: {
      view: true,
      access: true,
      admin: true,
      ownTeam: false,
      createContent: true,
      createOpenAPISpec: false,
      viewBilling: false,
      listMembers: true,
      listTeams: true,
      listIntegrations: false,
      listInstallations: false,
      installIntegration: false,
    },
  };
}

function collectionList(): Record<string, any> {
  return {
    items: [
      {
        object: 'collection',
        id: 'col1',
        title: 'Guides',
        organization: 'org1',
        urls: { location: 'http://localhost:3000/v1/collections/col1', app: 'http://localhost:3000/c/col1' },
        defaultLevel: null,
        permissions: { view: true, admin: false, viewInviteLinks: false, create: true },
      },
    ],
    count: 1,
    next: { page: 'cursor-2' },
  };
}

const samples: Array<[string, () => Record<string, any>]> = [
  ['getSpaceById', space],
  ['getOrganizationById', organization],
  ['listCollectionsInOrganizationById', collectionList],
];

describe('GitBook OpenAPI response validation', () => {
  it('indexes every operation by its operationId', () => {
    expect(operations.get('getSpaceById')).toEqual({ method: 'GET', path: '/spaces/{spaceId}', responses: ['200'] });
    expect(operations.get('listCollectionsInOrganizationById')).toMatchObject({
      method: 'GET',
      path: '/orgs/{organizationId}/collections',
    });
    expect(operations.get('deleteSpaceById')?.responses).toEqual(['204', '205']);
  });

  it.each(samples)('accepts a minimal valid %s body', (operationId, make) => {
    expect(responseValidator(operationId)(make())).toEqual({ valid: true, errors: [] });
    expect(() => expectMatchesGitBook(operationId, make())).not.toThrow();
  });

  it('rejects a body missing a required field and names the field', () => {
    const body = space();
    delete body.permissions;
    const result = responseValidator('getSpaceById')(body);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(["/ must have required property 'permissions'"]);
    expect(() => expectMatchesGitBook('getSpaceById', body)).toThrow(/getSpaceById[\s\S]*'permissions'/);

    const org = organization();
    delete org.trial.count;
    expect(responseValidator('getOrganizationById')(org).errors).toEqual(["/trial must have required property 'count'"]);

    const list = collectionList();
    delete list.items[0].urls.app;
    expect(responseValidator('listCollectionsInOrganizationById')(list).errors).toEqual([
      "/items/0/urls must have required property 'app'",
    ]);
  });

  it('rejects a wrong enum value', () => {
    const result = responseValidator('getSpaceById')({ ...space(), visibility: 'secret' });
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/^\/visibility must be equal to one of the allowed values: "public", /);

    const org = { ...organization(), type: 'enterprise' };
    expect(() => expectMatchesGitBook('getOrganizationById', org)).toThrow(/\/type must be equal to one of the allowed values/);
  });

  it('rejects a wrong type', () => {
    expect(responseValidator('getSpaceById')({ ...space(), comments: '0' }).errors).toEqual(['/comments must be number']);
    expect(responseValidator('getOrganizationById')({ ...organization(), emailDomains: 'acme.test' }).errors).toEqual([
      '/emailDomains must be array',
    ]);
    const list = collectionList();
    list.items[0].permissions.create = 'yes';
    expect(responseValidator('listCollectionsInOrganizationById')(list).errors).toEqual(['/items/0/permissions/create must be boolean']);
  });

  it('follows the document on nullable and formatted fields', () => {
    const validate = responseValidator('getSpaceById');
    for (const defaultLevel of [null, 'inherit', 'read', 'admin']) {
      expect(validate({ ...space(), defaultLevel }).valid).toBe(true);
    }
    expect(validate({ ...space(), defaultLevel: 'owner' }).valid).toBe(false);
    expect(validate({ ...space(), defaultLevel: undefined }).errors).toContain("/ must have required property 'defaultLevel'");
    expect(validate({ ...space(), createdAt: 'yesterday' }).errors).toContain('/createdAt must match format "date-time"');
    expect(validate({ ...space(), urls: { location: 'not a url', app: 'http://x.test/' } }).errors).toContain(
      '/urls/location must match format "uri"',
    );
  });

  it('checks the list envelope', () => {
    const validate = responseValidator('listCollectionsInOrganizationById');
    expect(validate({ items: [] }).valid).toBe(true);
    expect(validate({ items: [], next: {} }).errors).toEqual(["/next must have required property 'page'"]);
    expect(validate({ count: 0 }).errors).toEqual(["/ must have required property 'items'"]);
  });

  it('validates declared non-2xx responses and bodiless responses', () => {
    const notFound = responseValidator('getOrganizationById', 404);
    expect(notFound({ error: { code: 404, message: 'Not found' } }).valid).toBe(true);
    expect(notFound({ error: { code: 400, message: 'Not found' } }).errors).toEqual([
      '/error/code must be equal to one of the allowed values: 404',
    ]);
    expect(notFound({ message: 'Not found' }).errors).toEqual(["/ must have required property 'error'"]);

    expect(responseValidator('deleteSpaceById')(undefined).valid).toBe(true);
    expect(responseValidator('deleteSpaceById', 205)('').valid).toBe(true);
    expect(responseValidator('deleteSpaceById')({}).valid).toBe(false);
  });

  it('throws clearly on an unknown operationId or an undeclared status', () => {
    expect(() => responseValidator('getSpaceByIdd')).toThrow('Unknown GitBook operationId "getSpaceByIdd"');
    expect(() => expectMatchesGitBook('nope', {})).toThrow(/Unknown GitBook operationId "nope"/);
    expect(() => responseValidator('getSpaceById', 418)).toThrow(/declares no 418 response/);
  });

  it("checks an OpenAPI spec's content against the renderer's filesystem (the one field checked otherwise)", () => {
    const validate = responseValidator('getLatestOpenAPISpecVersionContent');
    const file = (filename: string, isEntrypoint: boolean) => ({
      dir: '.',
      isEntrypoint,
      references: [],
      filename,
      specification: { openapi: '3.1.0' },
    });
    const content = (filesystem: unknown) => ({ filesystem, urls: { source: 'https://h.example/openapi.yaml', public: null } });
    expect(validate(content([file('openapi.yaml', true), file('b.yaml', false)]))).toEqual({ valid: true, errors: [] });
    expect(responseValidator('getOpenAPISpecVersionContentById')(content([file('openapi.json', true)])).valid).toBe(true);
    // GitBook's document would take this object; the renderer cannot read it.
    expect(validate(content({ 'https://h.example/openapi.yaml': { openapi: '3.1.0' } })).errors).toContain('/filesystem must be array');
    expect(validate(content([])).valid).toBe(false);
    expect(validate(content([file('a.yaml', false)])).valid).toBe(false);
    expect(validate(content([file('a.yaml', true), file('b.yaml', true)])).valid).toBe(false);
    const { filename: _, ...unnamed } = file('a.yaml', true);
    expect(validate(content([unnamed])).errors).toContain("/filesystem/0 must have required property 'filename'");
  });

  it('maps concrete request paths to operationIds', () => {
    expect(operationFor('GET', '/v1/spaces/abc')).toBe('getSpaceById');
    expect(operationFor('get', '/spaces/abc')).toBe('getSpaceById');
    expect(operationFor('PATCH', '/v1/spaces/abc')).toBe('updateSpaceById');
    expect(operationFor('DELETE', '/v1/spaces/abc')).toBe('deleteSpaceById');
    expect(operationFor('GET', '/v1/spaces/abc/content')).toBe('getCurrentRevision');
    expect(operationFor('GET', '/v1/orgs/org1/collections?page=2&limit=10')).toBe('listCollectionsInOrganizationById');
    expect(operationFor('POST', '/v1/collections/col1/transfer')).toBe('transferCollection');
    expect(operationFor('GET', '/v1/user')).toBe('getAuthenticatedUser');
    expect(operationFor('GET', '/v1/orgs')).toBe('listOrganizationsForAuthenticatedUser');
    expect(operationFor('PUT', '/v1/spaces/abc')).toBeUndefined();
    expect(operationFor('GET', '/v1/nothing/here')).toBeUndefined();
  });
});
