import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * The Fastify instance a module's routes plugin receives (zod type provider). A plugin that registers many
 * routes hands it to plain functions, one per group of routes (`registerXRoutes(app, …)`), which register in the
 * same encapsulation context: no hook or decorator changes scope, and the OpenAPI document stays the same.
 */
export type RouteApp = Parameters<FastifyPluginAsyncZod>[0];
