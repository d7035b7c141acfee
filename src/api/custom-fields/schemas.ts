import { Type } from 'typebox';
import { CUSTOM_FIELD_LIMITS as L, CUSTOM_FIELD_NAME_PATTERN, CUSTOM_FIELD_TYPES } from '../../domain/custom-fields.ts';
import { Id, ListOf, Timestamp } from '../schemas.ts';

export const CustomFieldType = Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t)));
export const FieldName = Type.String({ minLength: 1, maxLength: L.name, pattern: CUSTOM_FIELD_NAME_PATTERN });
const Title = Type.String({ maxLength: L.title });
const Description = Type.String({ maxLength: L.description });
const Placeholder = Type.String({ maxLength: L.placeholder });
const Options = Type.Array(Type.String({ minLength: 1, maxLength: L.option }), { minItems: 1, maxItems: L.options });

export const CustomFieldSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  type: CustomFieldType,
  placeholder: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(Type.String())),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String() }),
  permissions: Type.Object({ view: Type.Boolean(), edit: Type.Boolean() }),
});
export const CustomFieldList = ListOf(CustomFieldSchema);

export const Value = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())]);
export const CustomFieldValueSchema = Type.Object({
  customField: CustomFieldSchema,
  value: Type.Optional(Value),
});
export const CustomFieldValueList = Type.Array(CustomFieldValueSchema);

export const OrgParams = Type.Object({ organizationId: Id });
export const FieldParams = Type.Object({ organizationId: Id, fieldName: FieldName });
export const SpaceParams = Type.Object({ spaceId: Id });

export const CreateCustomFieldBody = Type.Object({
  name: FieldName,
  type: CustomFieldType,
  title: Type.Optional(Title),
  description: Type.Optional(Description),
  placeholder: Type.Optional(Placeholder),
  options: Type.Optional(Options),
});

export const UpdateCustomFieldBody = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    placeholder: Type.Optional(Placeholder),
    options: Type.Optional(Options),
  },
  { minProperties: 1 },
);

export const UpdateValuesBody = Type.Object({
  values: Type.Record(Type.String(), Type.Object({ value: Type.Optional(Type.Unknown()) }), { maxProperties: 200 }),
});
