import { describe, expect, it } from '@jest/globals';
import { adaptiveSchemaProblem, unsignedClaimsProblem } from '../../../../src/domain/sites/adaptive.ts';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    isBeta: { type: 'boolean', description: 'In the beta' },
    unsigned: {
      type: 'object',
      description: 'Unsigned claims of the site visitor.',
      properties: { region: { type: 'string', description: 'Region' }, seats: { type: 'number', description: 'Seats' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

describe('adaptive schema', () => {
  it('accepts the documented form', () => {
    expect(adaptiveSchemaProblem(schema)).toBeNull();
    expect(adaptiveSchemaProblem({ type: 'object', properties: {}, additionalProperties: false })).toBeNull();
  });

  it('says what is wrong with anything else', () => {
    expect(adaptiveSchemaProblem({ ...schema, additionalProperties: true })).toMatch(/additionalProperties/);
    expect(adaptiveSchemaProblem({ ...schema, $schema: 'http://json-schema.org/draft-04/schema#' })).toMatch(/\$schema/);
    expect(adaptiveSchemaProblem({ ...schema, properties: { x: { type: 'boolean' } } })).toMatch(/x/);
    expect(adaptiveSchemaProblem({ ...schema, properties: { x: { type: 'date', description: 'd' } } })).toMatch(/x/);
    expect(adaptiveSchemaProblem({ type: 'object', additionalProperties: false })).toMatch(/properties is required/);
    expect(adaptiveSchemaProblem('nope')).toMatch(/jsonSchema/);
  });

  it('checks unsigned claims against the unsigned part', () => {
    expect(unsignedClaimsProblem(schema, { region: 'eu', seats: 3 })).toBeNull();
    expect(unsignedClaimsProblem(schema, { region: 3 })).toMatch(/region/);
    expect(unsignedClaimsProblem(schema, { isBeta: true })).toMatch(/isBeta/);
    expect(unsignedClaimsProblem({ type: 'object', properties: {}, additionalProperties: false }, { a: 1 })).toMatch(/no unsigned claims/);
    expect(unsignedClaimsProblem(null, {})).toBeNull();
  });
});
