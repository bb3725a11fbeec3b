/**
 * The contract of /catalog (docs/api.md "Catalog"): an org's templates, each a Git or HelmChart source block whose
 * string values may hold `{{ param }}` placeholders, and the JSON Schema of its params (scalar properties). An App
 * with `source.type: Catalog` names one. Rules the document cannot state answer 422 naming the field: param names
 * (`[A-Za-z_][A-Za-z0-9_]*`, property names), a default its param refuses, a placeholder naming no param.
 */
import { Type } from 'typebox';
import { PARAM_TYPES } from '../../core/catalog.ts';
import { GitRequest, HelmChartRequest } from '../apps/create-contract.ts';
import { errors } from '../contract/errors.ts';
import { component, Deleted, DnsLabel, ref, StringEnum, Timestamp, withoutDefaults } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

const Scalar = Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean()]);

const ParamSchema = Type.Object(
  {
    type: StringEnum(PARAM_TYPES),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    default: Type.Optional(Scalar),
    enum: Type.Optional(
      Type.Array(Type.Union([Type.String({ maxLength: 253 }), Type.Number()]), { minItems: 1, maxItems: 100 }),
    ),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    minLength: Type.Optional(Type.Integer({ minimum: 0 })),
    maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
    pattern: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { ...closed, description: 'one param: a JSON Schema of a scalar' },
);

const ParamsSchema = Type.Object(
  {
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), ParamSchema, {
      description: 'the params by name (letters, digits, _; not starting with a digit: 422 otherwise)',
    }),
    required: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64 })),
  },
  { ...closed, description: "JSON Schema of the template's params: an object of scalar properties" },
);

const TemplateSource = Type.Union(
  [
    Type.Object({ type: Type.Literal('Git'), git: withoutDefaults(GitRequest) }, closed),
    Type.Object({ type: Type.Literal('HelmChart'), helmChart: HelmChartRequest }, closed),
  ],
  {
    description:
      'the source Apps of the template deploy; string values may hold {{ param }} placeholders (a helmChart value that is exactly one placeholder takes the typed param)',
  },
);

const templateFields = {
  name: DnsLabel('template name'),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  source: TemplateSource,
  params_schema: ParamsSchema,
};

export const CatalogTemplate = component(
  'CatalogTemplate',
  Type.Object(
    {
      id: Type.String(),
      ...templateFields,
      version: Type.Integer({ minimum: 1, description: "counts the writes of this name; part of its Apps' revisions" }),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    closed,
  ),
);

export const CatalogTemplateRequest = component(
  'CatalogTemplateRequest',
  Type.Object(templateFields, {
    ...closed,
    description: 'a template; writing an existing name makes its next version, which its Apps roll forward to',
  }),
);

const tags = ['catalog'];
const NameParams = Type.Object({ name: DnsLabel('template name') });
const NOT_FOUND = { 404: 'no such template in this organization' };

export const listCatalogRoute = {
  tags,
  summary: 'Templates of the caller org (catalog:read)',
  response: { 200: Type.Object({ templates: Type.Array(ref(CatalogTemplate)) }, closed), ...errors() },
};
export const putCatalogRoute = {
  tags,
  summary:
    'Create a template, or write the next version of one (catalog:manage; audited catalog.put); 201 when new. Its Apps roll forward to the new version',
  body: ref(CatalogTemplateRequest),
  response: {
    200: ref(CatalogTemplate),
    201: ref(CatalogTemplate),
    ...errors(
      { 409: 'the same template written concurrently' },
      { 422: 'a bad param name, a default its param refuses, a placeholder naming no param, an unusable pattern' },
    ),
  },
};
export const getCatalogRoute = {
  tags,
  summary: 'One template at its current version (catalog:read)',
  params: NameParams,
  response: { 200: ref(CatalogTemplate), ...errors(NOT_FOUND) },
};
export const deleteCatalogRoute = {
  tags,
  summary: 'Delete a template (catalog:manage; audited catalog.delete); its Apps fail until it is written again',
  params: NameParams,
  response: { 200: ref(Deleted), ...errors(NOT_FOUND) },
};

export const CATALOG_COMPONENTS = [CatalogTemplate, CatalogTemplateRequest];
