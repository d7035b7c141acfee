import { describe, expect, it } from '@jest/globals';
import {
  blockDomains,
  checkConfiguration,
  checkConfigurations,
  configurationJsonSchema,
  decodeImage,
  installationSpaceRole,
  readsSpaceContent,
  integrationAccess,
  MAX_CONFIGURATION_BYTES,
  needsConfiguration,
} from '../../../src/domain/integrations.ts';
import type { Role } from '../../../src/domain/roles.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

function webp(): string {
  // RIFF....WEBPVP8X with a 1x1 canvas (width-1 and height-1 as 24-bit little endian at offsets 24 and 27)
  const buf = Buffer.alloc(30);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(22, 4);
  buf.write('WEBPVP8X', 8);
  buf.writeUInt32LE(10, 16);
  return buf.toString('base64');
}

describe('integration visibility', () => {
  const roles = (entries: [string, Role | null][]) => new Map(entries);
  it('shows public integrations to all, unlisted by name, private to members of the owner', () => {
    const none = roles([]);
    expect(integrationAccess({ visibility: 'public', ownerId: 'o' }, none)).toEqual({
      view: true,
      list: true,
      admin: false,
      install: false,
    });
    expect(integrationAccess({ visibility: 'unlisted', ownerId: 'o' }, none)).toMatchObject({ view: true, list: false });
    expect(integrationAccess({ visibility: 'private', ownerId: 'o' }, none)).toMatchObject({ view: false, list: false });
    const guest = roles([['o', null]]);
    expect(integrationAccess({ visibility: 'private', ownerId: 'o' }, guest)).toEqual({
      view: true,
      list: true,
      admin: false,
      install: false,
    });
    const ownerAdmin = roles([['o', 'admin']]);
    expect(integrationAccess({ visibility: 'private', ownerId: 'o' }, ownerAdmin)).toEqual({
      view: true,
      list: true,
      admin: true,
      install: true,
    });
  });

  it('lets admins of any organization install what is not private', () => {
    const elsewhere = roles([
      ['x', 'admin'],
      ['o', 'read'],
    ]);
    expect(integrationAccess({ visibility: 'public', ownerId: 'o' }, elsewhere)).toMatchObject({ admin: false, install: true });
    expect(integrationAccess({ visibility: 'private', ownerId: 'o' }, elsewhere)).toMatchObject({ view: true, install: false });
  });
});

describe('block domains', () => {
  it('takes the host of each unfurl pattern and its parent domains', () => {
    expect(blockDomains([{ urlUnfurl: ['https://www.YouTube.com/watch/**', 'youtu.be/*'] }, {}])).toEqual([
      'www.youtube.com',
      'youtu.be',
      'youtube.com',
    ]);
    expect(blockDomains([{ urlUnfurl: ['*.figma.com/file/*', 'http://a.b.example.co.uk:8080/x'] }])).toEqual([
      'a.b.example.co.uk',
      'b.example.co.uk',
      'co.uk',
      'example.co.uk',
      'figma.com',
    ]);
    expect(blockDomains([{ urlUnfurl: ['not a url', ''] }])).toEqual([]);
  });
});

describe('base64 images', () => {
  it('accepts PNG, GIF, WebP and SVG and reports their content type', () => {
    expect(decodeImage('icon', PNG)).toMatchObject({ ok: true, contentType: 'image/png' });
    expect(decodeImage('icon', GIF)).toMatchObject({ ok: true, contentType: 'image/gif' });
    expect(decodeImage('icon', webp())).toMatchObject({ ok: true, contentType: 'image/webp' });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>').toString('base64');
    expect(decodeImage('icon', svg)).toMatchObject({ ok: true, contentType: 'image/svg+xml' });
  });

  it('refuses what is not base64, not an image, another format, or too large', () => {
    expect(decodeImage('icon', 'a b c!')).toEqual({ ok: false, message: 'icon must be base64-encoded image content' });
    expect(decodeImage('icon', 'abc')).toMatchObject({ ok: false });
    expect(decodeImage('previewImages[2]', Buffer.from('hello').toString('base64'))).toEqual({
      ok: false,
      message: 'previewImages[2] must be a PNG, JPEG, GIF, WebP or SVG image',
    });
    const bmp = Buffer.alloc(64);
    bmp.write('BM');
    bmp.writeUInt32LE(1, 18);
    bmp.writeInt32LE(1, 22);
    expect(decodeImage('icon', bmp.toString('base64'))).toMatchObject({ ok: false });
    const huge = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(1024 * 1024)]);
    expect(decodeImage('icon', huge.toString('base64'))).toMatchObject({ ok: false, message: expect.stringMatching(/at most/) });
  });
});

describe('configuration schemas', () => {
  const account = {
    properties: {
      token: { type: 'string' },
      region: { type: 'string', enum: ['eu', 'us'] },
      retries: { type: 'number' },
      debug: { type: 'boolean' },
      connect: { type: 'button', callback_url: '/c', button_text: 'Connect' },
    },
    required: ['token', 'connect'],
  };

  it('builds a JSON schema from properties and required, leaving buttons out', () => {
    expect(configurationJsonSchema(account)).toEqual({
      type: 'object',
      properties: {
        token: { type: 'string' },
        region: { type: 'string', enum: ['eu', 'us'] },
        retries: { type: 'number' },
        debug: { type: 'boolean' },
      },
      required: ['token'],
      additionalProperties: false,
    });
    expect(configurationJsonSchema({ componentId: 'c' })).toBeNull();
    expect(configurationJsonSchema(undefined)).toBeNull();
    expect(needsConfiguration(account)).toBe(true);
    expect(needsConfiguration({ properties: { a: { type: 'string' } } })).toBe(false);
  });

  it('checks a configuration, naming the property', () => {
    expect(checkConfiguration(account, { token: 't', region: 'eu', retries: 2, debug: true })).toBeNull();
    expect(checkConfiguration(account, {})).toBe('configuration.token is required');
    expect(checkConfiguration(account, { token: 1 })).toBe('configuration.token must be string');
    expect(checkConfiguration(account, { token: 't', region: 'mars' })).toBe('configuration.region must be one of: "eu", "us"');
    expect(checkConfiguration(account, { token: 't', extra: 1 })).toBe(
      "configuration.extra is not a property of this integration's account configuration",
    );
    expect(checkConfiguration(undefined, { anything: true })).toBeNull();
  });

  it('checks published configurations', () => {
    expect(checkConfigurations({ account, space: { componentId: 'x' } })).toBeNull();
    expect(checkConfigurations({ account: {} })).toBe('configurations.account must have either properties or componentId');
    expect(checkConfigurations({ site: { properties: {}, componentId: 'x' } })).toMatch(/configurations\.site must have either/);
    expect(checkConfigurations({ account: { properties: { n: { type: 'number', enum: ['1'] } } } })).toBe(
      'configurations.account.properties.n.enum is only for string properties',
    );
    expect(checkConfigurations({ account: { properties: { n: { type: 'number', default: '1' } } } })).toBe(
      'configurations.account.properties.n.default must be a number',
    );
    expect(checkConfigurations({ account: { properties: { s: { type: 'string', enum: ['a'], default: 'b' } } } })).toMatch(
      /default must be one of/,
    );
    expect(checkConfigurations({ account: { properties: { b: { type: 'button' } } } })).toMatch(/needs callback_url and button_text/);
    expect(checkConfigurations({ account: { properties: {}, required: ['x'] } })).toBe(
      'configurations.account.required[0] "x" is not one of its properties',
    );
  });
});

describe('configurations of spaces and sites', () => {
  const space = { properties: { channel: { type: 'string' } }, required: ['channel'] };

  it('names the level whose properties an unknown one is not part of', () => {
    expect(checkConfiguration(space, { channel: 'c', colour: 'red' }, 'space')).toBe(
      "configuration.colour is not a property of this integration's space configuration",
    );
    expect(checkConfiguration(space, { channel: 'c', colour: 'red' }, 'site')).toMatch(/site configuration$/);
    expect(checkConfiguration(space, { channel: 'c' }, 'space')).toBeNull();
  });

  it('bounds the size of any configuration, declared properties or not', () => {
    const big = { note: 'x'.repeat(MAX_CONFIGURATION_BYTES) };
    expect(checkConfiguration(undefined, big, 'site')).toBe(`configuration must be at most ${MAX_CONFIGURATION_BYTES} bytes as JSON`);
    expect(checkConfiguration(undefined, { note: 'x'.repeat(MAX_CONFIGURATION_BYTES - 20) }, 'site')).toBeNull();
    // Multi-byte characters count as the bytes they take.
    expect(checkConfiguration(undefined, { note: 'é'.repeat(MAX_CONFIGURATION_BYTES / 2) })).toMatch(/at most/);
  });
});

describe('installationSpaceRole', () => {
  it('gives edit with a space write scope, read with a space read scope, nothing otherwise', () => {
    expect(installationSpaceRole(['space:content:write'])).toBe('edit');
    expect(installationSpaceRole(['space:metadata:write'])).toBe('edit');
    expect(installationSpaceRole(['space:content:read'])).toBe('read');
    expect(installationSpaceRole(['space:metadata:read', 'site:metadata:read'])).toBe('read');
    expect(installationSpaceRole(['site:metadata:read', 'openapi:write', 'space:git:sync'])).toBeNull();
    expect(installationSpaceRole([])).toBeNull();
  });
});

describe('readsSpaceContent', () => {
  it('is the content scopes only, not the metadata ones', () => {
    expect(readsSpaceContent(['space:content:read'])).toBe(true);
    expect(readsSpaceContent(['space:content:write'])).toBe(true);
    expect(readsSpaceContent(['space:metadata:read', 'space:metadata:write', 'site:views:read'])).toBe(false);
    expect(readsSpaceContent([])).toBe(false);
  });
});
