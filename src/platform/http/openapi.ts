import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DRY_RUN_PARAMETER, supportsDryRun } from './dry-run.js';
import { errorEnvelope } from './errors.js';
import { operationIdFor } from './operation-ids.js';

const errorResponses = {
  400: 'Bad request or validation error',
  401: 'Missing, expired or invalid token',
  403: 'No permission, not a member, or feature outside the plan',
  404: 'Not found',
  409: 'Conflict: already exists, a concurrent write won (retry after Retry-After), or the organization is being deleted (writes refused)',
  422: 'Business rule failed',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'Unexpected error',
};

/**
 * The query parameters of the list language (list-query.ts). They are objects on the wire in Strapi's bracket
 * form, `pagination[page]=1&filters[name][$containsi]=x`: OpenAPI calls that `style: deepObject`. Without it a
 * tool applies the default (form, exploded) and sends `?page=1&pageSize=25`, which the strict query refuses.
 */
const DEEP_OBJECT_PARAMETERS = new Set(['pagination', 'filters', 'populate', 'sort']);

/** The one definition of `?dryRun` (http/dry-run.ts), referenced by every operation that takes it. */
const DRY_RUN_REF = '#/components/parameters/DryRun';
const dryRunParameter = {
  name: DRY_RUN_PARAMETER,
  in: 'query',
  required: false,
  description:
    'true: run the request in full (validation, access, rules) without writing anything or contacting anyone; ' +
    'success is a 200 with the would-be body, `meta.dryRun: true` and the `Dry-Run: true` header, failure the ' +
    '4xx the real call would give (docs/dry-run.md).',
  schema: { type: 'string', enum: ['true', 'false'] },
};
const DRY_RUN_NOTE =
  'Dry run: `?dryRun=true` answers 200 with the would-be result (`meta.dryRun: true`, header `Dry-Run: true`) and changes nothing.';

const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer' },
  tenantId: {
    type: 'apiKey',
    in: 'header',
    name: 'x-tenant-id',
    description: 'Slug of the organization (tenant) the request acts in; required by every tenant route.',
  },
} as const;

/** OpenAPI 3.1 from the routes' zod schemas, plus the bearer scheme and the tenant header. */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'CRM service',
        version: '1.0.0',
        description:
          'Multi-tenant CRM REST interface. Tenant routes need `Authorization: Bearer <token>` and `x-tenant-id: <organization slug>`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes },
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input) as { schema: Record<string, any>; url: string };
      const config = (input.route as { config?: { auth?: string; scope?: string | string[] } }).config;
      const auth = config?.auth ?? 'tenant';
      const scopes = config?.scope ? [config.scope].flat() : [];
      const schema: Record<string, any> = { ...out.schema };
      // zod leaves `examples` out of the input JSON schema of a schema with transforms (trim, lowercase…),
      // taking them for output values; a body's examples are inputs (dataBody), so they are put back.
      const body = (input.schema as { body?: unknown } | undefined)?.body;
      const examples = body instanceof z.ZodType ? z.globalRegistry.get(body)?.examples : undefined;
      if (examples && schema.body && !schema.body.examples) schema.body = { ...schema.body, examples };
      const method = [input.route.method].flat()[0];
      schema.operationId = schema.operationId ?? operationIdFor(method, out.url);
      // Every operation gets a description (readers, generated doc comments): at least who may call it.
      const described = (note: string) => (schema.description ? `${schema.description}\n\n${note}` : note);
      // OpenAPI 3.1 lets a non-OAuth scheme list the roles an operation needs: the token scopes go there, and in
      // `x-required-scopes` and the description for readers and generators that ignore them. The tenant is an
      // apiKey scheme rather than a header parameter, so the docs page's Authorize sets it once and generated
      // clients take it with the token instead of as an argument of every call.
      if (auth !== 'public') {
        schema.security = [auth === 'tenant' ? { bearerAuth: scopes, tenantId: [] } : { bearerAuth: scopes }];
        schema['x-required-scopes'] = scopes;
        const tenant = auth === 'tenant' ? ' Tenant: the `x-tenant-id` header (the tenantId scheme).' : '';
        const needs = scopes.length ? scopes.map((s) => `\`${s}\``).join(' + ') : 'none (any token)';
        schema.description = described(`Token scope: ${needs}.${tenant}`);
      } else {
        schema.security = [];
        schema.description = described('Public: no token needed.');
      }
      const dryRunConfig = (input.route as { config?: { auth?: string; dryRun?: boolean } }).config;
      if (supportsDryRun(method, dryRunConfig)) {
        schema['x-dry-run'] = true;
        schema.description = described(DRY_RUN_NOTE);
      }
      const response = { ...(schema.response ?? {}) };
      for (const [code, description] of Object.entries(errorResponses)) {
        if (!response[code]) response[code] = { description, $ref: '#/components/schemas/Error' };
      }
      schema.response = response;
      return { schema, url: out.url };
    },
    transformObject: (doc) => {
      const obj = jsonSchemaTransformObject(doc) as any;
      obj.components = obj.components ?? {};
      const { $schema: _dialect, ...errorSchema } = errorEnvelope.toJSONSchema();
      obj.components.schemas = { ...(obj.components.schemas ?? {}), Error: errorSchema };
      obj.components.parameters = { ...(obj.components.parameters ?? {}), DryRun: dryRunParameter };
      // $ref responses cannot carry siblings in 3.1 response objects: expand to content.
      for (const methods of Object.values<any>(obj.paths ?? {})) {
        for (const op of Object.values<any>(methods)) {
          if (op['x-dry-run']) {
            delete op['x-dry-run'];
            op.parameters = [...(op.parameters ?? []), { $ref: DRY_RUN_REF }];
          }
          for (const param of op.parameters ?? []) {
            if (param.in === 'query' && DEEP_OBJECT_PARAMETERS.has(param.name)) {
              param.style = 'deepObject';
              param.explode = true;
            }
          }
          for (const [code, res] of Object.entries<any>(op.responses ?? {})) {
            if (res?.$ref === '#/components/schemas/Error') {
              op.responses[code] = {
                description: res.description,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
              };
            }
          }
        }
      }
      pruneUnusedSchemas(obj);
      return obj;
    },
  });
}

/**
 * The zod provider emits an input and an output component for every registered schema; the half no route
 * uses (`ContactRef` as input…) is noise for readers and generators (Redocly's no-unused-components).
 */
function pruneUnusedSchemas(doc: { components: { schemas?: Record<string, unknown> } }) {
  const schemas = doc.components.schemas ?? {};
  const prefix = '#/components/schemas/';
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith(prefix)) {
          const name = value.slice(prefix.length);
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(value);
      }
    }
  };
  visit({ ...doc, components: { ...doc.components, schemas: {} } });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

export async function registerDocsRoutes(app: FastifyInstance) {
  app.get('/api/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  app.get('/api/openapi.yaml', { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })),
  );
  app.addHook('onRoute', (route) => {
    // The docs are the HTML pages: they get helmet's headers and Swagger UI's CSP (conventions.ts).
    if (route.url.startsWith('/api/docs'))
      route.config = { ...(route.config ?? {}), auth: 'public', helmet: {} } as typeof route.config;
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { deepLinking: true } });
}
