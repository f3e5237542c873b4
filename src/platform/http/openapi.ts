import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorEnvelope } from './errors.js';

const errorResponses = {
  400: 'Bad request or validation error',
  401: 'Missing, expired or invalid token',
  403: 'No permission, not a member, or feature outside the plan',
  404: 'Not found',
  422: 'Business rule failed',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'Unexpected error',
};

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
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input) as { schema: Record<string, any>; url: string };
      const config = (input.route as { config?: { auth?: string; scope?: string | string[] } }).config;
      const auth = config?.auth ?? 'tenant';
      const scopes = config?.scope ? [config.scope].flat() : [];
      const schema: Record<string, any> = { ...out.schema };
      // OpenAPI 3.1 lets a non-OAuth scheme list the roles an operation needs: the token scopes go there, and in
      // `x-required-scopes` and the description for readers and generators that ignore them.
      if (auth !== 'public') {
        schema.security = [{ bearerAuth: scopes }];
        schema['x-required-scopes'] = scopes;
        const note = `Token scope: ${scopes.map((s) => `\`${s}\``).join(' + ')}.`;
        schema.description = schema.description ? `${schema.description}\n\n${note}` : note;
      } else schema.security = [];
      if (auth === 'tenant') {
        schema.headers = {
          type: 'object',
          properties: {
            ...(schema.headers?.properties ?? {}),
            'x-tenant-id': { type: 'string', description: 'Slug of the organization (tenant)' },
          },
          required: [...(schema.headers?.required ?? []), 'x-tenant-id'],
        };
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
      // $ref responses cannot carry siblings in 3.1 response objects: expand to content.
      for (const methods of Object.values<any>(obj.paths ?? {})) {
        for (const op of Object.values<any>(methods)) {
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
      return obj;
    },
  });
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
