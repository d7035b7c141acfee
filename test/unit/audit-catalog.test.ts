import { describe, expect, it } from '@jest/globals';
import {
  answerLabel,
  auditActions,
  catalogedRoutes,
  JOB_ACTIONS,
  NOT_CHANGES,
  requestPayload,
  routeAudit,
  routeParams,
  routeTarget,
  TARGET_TYPES,
} from '../../src/domain/audit.ts';

describe('the audit catalog', () => {
  it('gives every catalogued route a stable action id and a label', () => {
    const routes = catalogedRoutes();
    expect(routes.length).toBeGreaterThan(100);
    for (const route of routes) {
      const [method, url] = route.split(' ');
      const entry = routeAudit(method, url)!;
      expect(entry.action).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(entry.label.length).toBeGreaterThan(3);
      // The target a route names is one of its parameters, and every parameter has a target type.
      if (entry.target) expect(routeParams(url)).toContain(entry.target);
      for (const name of routeParams(url)) expect(TARGET_TYPES[name]).toBeDefined();
    }
  });

  it('names each action once: one id per route, never two routes with one id', () => {
    const ids = catalogedRoutes().map((route) => routeAudit(...(route.split(' ') as [string, string]))!.action);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists every action of routes and jobs once, with its label', () => {
    const actions = auditActions();
    const ids = actions.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['space.created', 'space.updated', 'change_request.merged', 'site_lookup_token.created']));
    for (const job of Object.values(JOB_ACTIONS)) expect(ids).toContain(job.action);
    expect(actions.find((a) => a.id === 'space.created')?.label).toBe('Space created');
  });

  it('does not catalog reads sent as POST, and answers nothing for methods that change nothing', () => {
    for (const route of Object.keys(NOT_CHANGES)) {
      const [method, url] = route.split(' ');
      expect(routeAudit(method, url)).toBeUndefined();
    }
    expect(routeAudit('GET', '/v1/spaces/:spaceId')).toBeUndefined();
    expect(routeAudit('patch', '/v1/spaces/:spaceId')?.action).toBe('space.updated');
  });

  it('takes the target from the last route parameter, or the one the catalog names', () => {
    const comment = '/v1/spaces/:spaceId/comments/:commentId';
    expect(routeTarget(comment, routeAudit('PUT', comment)!, { spaceId: 's1', commentId: 'c1' })).toEqual({ type: 'comment', id: 'c1' });
    const grant = '/v1/spaces/:spaceId/permissions/users/:userId';
    expect(routeTarget(grant, routeAudit('PATCH', grant)!, { spaceId: 's1', userId: 'u1' })).toEqual({ type: 'space', id: 's1' });
    const create = '/v1/orgs/:organizationId/collections';
    expect(routeTarget(create, routeAudit('POST', create)!, { organizationId: 'o1' })).toEqual({ type: 'organization', id: 'o1' });
  });

  it('keeps ids and the names of the fields a body set, never their values', () => {
    const url = '/v1/orgs/:organizationId/saml/:samlProviderId';
    const payload = requestPayload(
      url,
      routeAudit('PATCH', url)!,
      { organizationId: 'o1', samlProviderId: 'p1' },
      {
        label: 'IdP',
        certificate: '-----BEGIN PRIVATE KEY-----secret',
        'bad key; drop': 1,
      },
    );
    expect(payload).toEqual({ organizationId: 'o1', fields: ['certificate', 'label'] });
    expect(JSON.stringify(payload)).not.toContain('secret');
    expect(requestPayload(url, routeAudit('PATCH', url)!, {}, ['a'])).toEqual({});
  });

  it('labels a created object by its title, name or label', () => {
    expect(answerLabel({ id: 'x', title: 'Docs' })).toBe('Docs');
    expect(answerLabel({ id: 'x', name: 'n' })).toBe('n');
    expect(answerLabel({ id: 'x' })).toBeUndefined();
    expect(answerLabel('text')).toBeUndefined();
    expect(answerLabel({ title: 'x'.repeat(300) })).toHaveLength(200);
  });
});
