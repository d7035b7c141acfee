/**
 * Custom fields: organization-wide definitions of metadata that spaces carry. The rules for a
 * definition (which types take options) and for a value (what each type accepts) live here.
 */

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'select', 'multi-select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const CUSTOM_FIELD_NAME_PATTERN = '^[a-z_\\-0-9]+$';
export const CUSTOM_FIELD_LIMITS = {
  name: 50,
  title: 100,
  description: 200,
  placeholder: 100,
  options: 50,
  option: 256,
  stringValue: 256,
} as const;

export function isSelectType(type: string): boolean {
  return type === 'select' || type === 'multi-select';
}

/**
 * Checks `options` against the field type: the select types need them, the others refuse them.
 * `options` undefined means "not given" (on update: unchanged). Returns an error message or null.
 */
export function checkOptions(type: string, options: string[] | undefined, creating: boolean): string | null {
  if (isSelectType(type)) {
    if (options === undefined) return creating ? `options is required for ${type} fields` : null;
    const seen = new Set<string>();
    for (const [i, option] of options.entries()) {
      if (seen.has(option)) return `options[${i}] "${option}" is listed twice`;
      seen.add(option);
    }
    return null;
  }
  return options === undefined ? null : `options is only for select and multi-select fields, not ${type}`;
}

export interface FieldDefinition {
  name: string;
  type: string;
  options?: string[] | null;
}

export type CustomFieldValue = string | number | boolean | string[];

export type ValueCheck = { ok: true; value: CustomFieldValue } | { ok: false; message: string };

/** Checks one value against its field; the message names `values.<name>.value`. */
export function checkValue(field: FieldDefinition, value: unknown): ValueCheck {
  const where = `values.${field.name}.value`;
  const fail = (message: string): ValueCheck => ({ ok: false, message: `${where} ${message}` });
  const options = field.options ?? [];
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string') return fail('must be a string for a text field');
      if (value.length > CUSTOM_FIELD_LIMITS.stringValue)
        return fail(`must NOT have more than ${CUSTOM_FIELD_LIMITS.stringValue} characters`);
      return { ok: true, value };
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a finite number for a number field');
      return { ok: true, value };
    case 'boolean':
      if (typeof value !== 'boolean') return fail('must be a boolean for a boolean field');
      return { ok: true, value };
    case 'select':
      if (typeof value !== 'string') return fail('must be a string (one of the options) for a select field');
      if (!options.includes(value)) return fail(`"${truncate(value)}" is not one of the options of this field`);
      return { ok: true, value };
    case 'multi-select': {
      if (!Array.isArray(value)) return fail('must be an array of strings for a multi-select field');
      const out: string[] = [];
      for (const [i, item] of value.entries()) {
        if (typeof item !== 'string') return { ok: false, message: `${where}[${i}] must be a string` };
        if (!options.includes(item))
          return { ok: false, message: `${where}[${i}] "${truncate(item)}" is not one of the options of this field` };
        if (!out.includes(item)) out.push(item);
      }
      return { ok: true, value: out };
    }
    default:
      return fail(`cannot be set: unknown field type ${field.type}`);
  }
}

/**
 * What remains of a stored value once the options of its field changed: a select value that is no
 * longer an option is dropped (undefined), a multi-select value keeps the options that remain.
 */
export function pruneValue(type: string, value: unknown, options: string[]): CustomFieldValue | undefined {
  if (type === 'select') return typeof value === 'string' && options.includes(value) ? value : undefined;
  if (type === 'multi-select') {
    if (!Array.isArray(value)) return undefined;
    const kept = value.filter((v): v is string => typeof v === 'string' && options.includes(v));
    return kept.length > 0 ? kept : undefined;
  }
  return value as CustomFieldValue;
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
