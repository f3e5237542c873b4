import { getApp } from './app.js';

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One operation of the served OpenAPI document, with what every sweep asks of it. */
export interface DocOperation {
  method: HttpMethod;
  path: string;
  /** The raw operation object. */
  op: any;
  public: boolean;
  /** Needs x-tenant-id: the tenantId security scheme beside the bearer. */
  tenant: boolean;
  scopes: string[];
}

/** The service's own OpenAPI document (as served), and every operation in it. */
export async function openApiDocument(): Promise<{ doc: any; operations: DocOperation[] }> {
  const { app } = await getApp();
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const operations: DocOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      operations.push({
        method,
        path,
        op,
        public: Array.isArray(op.security) && op.security.length === 0,
        tenant: (op.security ?? []).some((s: Record<string, unknown>) => 'tenantId' in s),
        scopes: op['x-required-scopes'] ?? [],
      });
    }
  }
  return { doc, operations };
}
