import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { imageSize } from 'image-size';
import { atLeast, type Role } from './roles.ts';
import { sharedCache } from './lru.ts';
import { compiledSchemaBytes, entryBytes } from './sizeof.ts';

/**
 * Integrations: who sees and manages them, what their published images may be, which domains
 * their blocks unfurl, and how an installation's configuration is checked against the schema
 * the integration publishes.
 */

export const INTEGRATION_NAME_PATTERN = '^[a-zA-Z0-9-_.]+$';
export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export type IntegrationVisibility = (typeof INTEGRATION_VISIBILITIES)[number];

/**
 * Visibility, following GitBook's `public | private | unlisted`:
 * - public: listed for and readable by every authenticated caller; any organization admin may install it.
 * - unlisted: readable and installable by anyone who knows its name; listed only for members of the owner.
 * - private: listed, readable and installable only by members (admins to install) of the owner organization;
 *   everyone else gets 404.
 * Publishing, unpublishing and reading every installation need the admin role in the owner organization.
 */
export function integrationAccess(integration: { visibility: string; ownerId: string }, memberships: ReadonlyMap<string, Role | null>) {
  const member = memberships.has(integration.ownerId);
  const admin = atLeast(memberships.get(integration.ownerId), 'admin');
  const isPrivate = integration.visibility === 'private';
  const anyAdmin = [...memberships.values()].some((role) => atLeast(role, 'admin'));
  return {
    view: !isPrivate || member,
    list: integration.visibility === 'public' || member,
    admin,
    install: isPrivate ? admin : anyAdmin,
  };
}

/**
 * The domains the blocks of an integration unfurl, for the `blockDomain` filter: each host of a
 * `urlUnfurl` pattern and every parent domain of it (`www.youtube.com` → also `youtube.com`), lowercase.
 */
export function blockDomains(blocks: readonly { urlUnfurl?: readonly string[] }[]): string[] {
  const out = new Set<string>();
  for (const block of blocks) {
    for (const pattern of block.urlUnfurl ?? []) {
      const host = pattern
        .trim()
        .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
        .split(/[/?#:]/)[0]
        .replace(/^(\*\.)+/, '')
        .toLowerCase();
      if (!/^[a-z0-9-_]+(\.[a-z0-9-_]+)*$/.test(host)) continue;
      out.add(host);
      const labels = host.split('.');
      for (let i = 1; i < labels.length - 1; i++) out.add(labels.slice(i).join('.'));
    }
  }
  return [...out].sort();
}

export const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};
/** Largest decoded icon or preview image. */
export const MAX_IMAGE_BYTES = 1024 * 1024;

export type ImageCheck = { ok: true; data: Buffer; contentType: string } | { ok: false; message: string };

/** Decodes a base64 image and checks its bytes are a PNG, JPEG, GIF, WebP or SVG image. */
export function decodeImage(field: string, base64: string): ImageCheck {
  const compact = base64.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    return { ok: false, message: `${field} must be base64-encoded image content` };
  }
  const data = Buffer.from(compact, 'base64');
  if (data.length > MAX_IMAGE_BYTES) return { ok: false, message: `${field} must be at most ${MAX_IMAGE_BYTES} bytes once decoded` };
  let type: string | undefined;
  try {
    const info = imageSize(data);
    type = info.type;
    if (!info.width || !info.height) type = undefined;
  } catch {
    type = undefined;
  }
  const contentType = type ? IMAGE_TYPES[type] : undefined;
  if (!contentType) return { ok: false, message: `${field} must be a PNG, JPEG, GIF, WebP or SVG image` };
  return { ok: true, data, contentType };
}

interface ConfigurationProperty {
  type?: string;
  enum?: string[];
  default?: unknown;
  callback_url?: string;
  button_text?: string;
}

export interface ConfigurationSchema {
  properties?: Record<string, ConfigurationProperty>;
  required?: string[];
  componentId?: string;
}

/**
 * The JSON schema an account configuration must match, built from the `properties` and `required`
 * an integration publishes under `configurations.account`; null when it publishes none (or a
 * ContentKit component, whose values this service cannot check). `button` properties are actions,
 * not values, and take no part.
 */
export function configurationJsonSchema(account: ConfigurationSchema | undefined | null): object | null {
  if (!account?.properties) return null;
  const properties: Record<string, object> = {};
  for (const [name, property] of Object.entries(account.properties)) {
    if (property.type === 'string') properties[name] = { type: 'string', ...(property.enum ? { enum: property.enum } : {}) };
    else if (property.type === 'number') properties[name] = { type: 'number' };
    else if (property.type === 'boolean') properties[name] = { type: 'boolean' };
  }
  const required = (account.required ?? []).filter((name) => name in properties);
  return { type: 'object', properties, required, additionalProperties: false };
}

const ajv = new Ajv({ allErrors: false, strict: false });
/**
 * Configuration schemas compiled by this process, by their JSON text, within the
 * `integrationSchemas` share of CACHE_MEMORY (a schema of ten properties: about 30 KB compiled).
 * Ajv keeps every schema it compiles in a cache of its own, so a schema leaving this one (or too
 * large to enter it) is removed from Ajv too.
 */
const compiled = sharedCache<string, { schema: object; validate: ValidateFunction }>(
  'integrationSchemas',
  (entry, key) => entryBytes(key, null, compiledSchemaBytes(entry.schema, entry.validate)),
  (_key, entry) => ajv.removeSchema(entry.schema),
);

function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let entry = compiled().get(key);
  if (!entry) {
    entry = { schema, validate: ajv.compile(schema) };
    compiled().set(key, entry);
    if (!compiled().has(key)) ajv.removeSchema(schema);
  }
  return entry.validate;
}

/** Where a configuration applies: the organization (`account`), one space, or one site. */
export type ConfigurationLevel = 'account' | 'space' | 'site';

/** The largest configuration kept, as JSON text: it is stored and shown with every installation. */
export const MAX_CONFIGURATION_BYTES = 64 * 1024;

/**
 * Checks an installation's configuration (`level`: an organization's, a space's or a site's)
 * against the properties the integration declares for that level; the message names the property
 * (`configuration.<name>`). Any configuration is bounded in size, declared properties or not.
 */
export function checkConfiguration(
  declared: ConfigurationSchema | undefined | null,
  configuration: Record<string, unknown>,
  level: ConfigurationLevel = 'account',
): string | null {
  if (Buffer.byteLength(JSON.stringify(configuration)) > MAX_CONFIGURATION_BYTES) {
    return `configuration must be at most ${MAX_CONFIGURATION_BYTES} bytes as JSON`;
  }
  const schema = configurationJsonSchema(declared);
  if (!schema) return null;
  const validate = validatorFor(schema);
  if (validate(configuration)) return null;
  return describeError(validate.errors?.[0], level);
}

function describeError(error: ErrorObject | undefined, level: ConfigurationLevel): string {
  if (!error) return 'configuration is not valid';
  const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
  const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const where = path ? `configuration.${path}` : 'configuration';
  if (params.missingProperty) return `configuration.${params.missingProperty} is required`;
  if (params.additionalProperty)
    return `configuration.${params.additionalProperty} is not a property of this integration's ${level} configuration`;
  if (params.allowedValues) return `${where} must be one of: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where} ${error.message ?? 'is not valid'}`;
}

/**
 * Checks what the schema of a publish body cannot: each configuration is either `properties`
 * (with defaults of the property's type, `enum` only on strings, buttons with their callback and
 * text, and `required` naming existing properties) or a ContentKit `componentId`.
 */
export function checkConfigurations(configurations: Record<string, ConfigurationSchema | undefined>): string | null {
  for (const [target, configuration] of Object.entries(configurations)) {
    if (!configuration) continue;
    const where = `configurations.${target}`;
    if ((configuration.properties === undefined) === (configuration.componentId === undefined)) {
      return `${where} must have either properties or componentId`;
    }
    if (!configuration.properties) continue;
    for (const [name, property] of Object.entries(configuration.properties)) {
      const at = `${where}.properties.${name}`;
      if (property.enum !== undefined && property.type !== 'string') return `${at}.enum is only for string properties`;
      if (property.type === 'button') {
        if (!property.callback_url || !property.button_text) return `${at} of type button needs callback_url and button_text`;
        if (property.default !== undefined) return `${at}.default is not allowed on a button`;
      } else if (property.default !== undefined) {
        if (typeof property.default !== property.type) return `${at}.default must be a ${property.type}`;
        if (property.enum && !property.enum.includes(property.default as string)) return `${at}.default must be one of its enum values`;
      }
    }
    for (const [i, name] of (configuration.required ?? []).entries()) {
      if (!(name in configuration.properties)) return `${where}.required[${i}] "${name}" is not one of its properties`;
    }
  }
  return null;
}

/** True when the account configuration has required values, so an installation without configuration waits for it. */
export function needsConfiguration(account: ConfigurationSchema | undefined | null): boolean {
  const schema = configurationJsonSchema(account) as { required?: string[] } | null;
  return (schema?.required?.length ?? 0) > 0;
}

/**
 * The role an integration's scopes give a token acting as one of its installations on the spaces
 * the installation reaches: `edit` with `space:content:write` or `space:metadata:write` (never
 * above: settings, access and deletion stay with members), `read` with `space:content:read` or
 * `space:metadata:read`; null without any space scope.
 */
export function installationSpaceRole(scopes: readonly string[]): Role | null {
  if (scopes.includes('space:content:write') || scopes.includes('space:metadata:write')) return 'edit';
  if (scopes.includes('space:content:read') || scopes.includes('space:metadata:read')) return 'read';
  return null;
}

/** Whether an integration's scopes let its installations read the content of the spaces they reach (pages, files, revisions, change requests, search). */
export function readsSpaceContent(scopes: readonly string[]): boolean {
  return scopes.includes('space:content:read') || scopes.includes('space:content:write');
}
