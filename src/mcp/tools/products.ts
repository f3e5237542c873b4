import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { deletedOutput, docId } from './common.js';

const category = z.object({
  documentId: z.string().describe('documentId of the category'),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const product = z.object({
  documentId: z.string().describe('documentId of the product'),
  name: z.string(),
  sku: z.string().describe('Stock keeping unit, unique in the organization'),
  price: z.number().describe('Unit price'),
  minPrice: z.number().nullable().describe('Lowest unit price allowed on quotes and card lines; null: none'),
  description: z.string().nullable(),
  unit: z.string().nullable(),
  active: z.boolean(),
  category: z.object({ documentId: z.string(), name: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const money = (what: string) => z.number().min(0).describe(`${what}, a number with at most 2 decimals`);

const productFields = {
  name: z.string().min(1).max(200).describe('Product name'),
  sku: z.string().min(1).max(64).describe('SKU, unique per organization (case-insensitive)'),
  price: money('Unit price'),
  minPrice: money('Lowest unit price a quote or card line may use')
    .nullable()
    .optional()
    .describe('Lowest unit price a quote or card line may use (at most 2 decimals); null removes the floor'),
  description: z.string().max(10_000).nullable().optional().describe('Free-text description; null clears it'),
  unit: z.string().max(20).nullable().optional().describe('Unit of sale, e.g. pc, h, kg; null clears it'),
  active: z.boolean().optional().describe('Inactive products cannot be added to new quotes or card lines'),
  category: z
    .string()
    .nullable()
    .optional()
    .describe('documentId of a product category (see crm.list_product_categories); null removes it'),
};

export const productTools: Tool[] = [
  readTool({
    name: 'list_products',
    title: 'List products',
    description:
      'Lists the catalogue of products (name, SKU, price, minimum price, unit, category), paged. Use it to find a product documentId before crm.get_product, crm.update_product or crm.delete_product, or to look up prices. `search` matches name or SKU.',
    input: {
      search: z.string().optional().describe('Text contained in the name or SKU (case-insensitive)'),
      active: z.boolean().optional().describe('Only active (true) or inactive (false) products'),
      category: z.string().optional().describe('documentId of a product category to filter by'),
      ...paging,
    },
    output: listOutput(product),
    run: async (args, { api, apiUrl }) => {
      const filters: Record<string, unknown> = {};
      if (args.search)
        filters.$or = [{ name: { $containsi: args.search } }, { sku: { $containsi: args.search } }];
      if (args.active !== undefined) filters.active = { $eq: args.active };
      if (args.category) filters.category = { documentId: { $eq: args.category } };
      return unwrap(
        api.GET('/api/products', { params: { query: { ...pagingQuery(args), filters } } }),
        apiUrl,
      );
    },
  }),
  readTool({
    name: 'get_product',
    title: 'Get a product',
    description: 'Returns one product by its documentId (from crm.list_products), with its category.',
    input: { productId: docId('product') },
    output: product,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/products/{id}', { params: { path: { id: args.productId } } }), apiUrl),
  }),
  writeTool({
    name: 'create_product',
    title: 'Create a product',
    description:
      'Adds a product to the catalogue. name, sku and price are required; the SKU must be unique in the organization (a duplicate gives a 400 naming the key). Needs the admin role. Product images cannot be uploaded through this tool.',
    input: productFields,
    output: product,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the product "${a.name}" (SKU ${a.sku}, price ${a.price})`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.POST('/api/products', { body: { data: defined(args) as typeof args } }), apiUrl),
  }),
  writeTool({
    name: 'update_product',
    title: 'Update a product',
    description:
      'Changes fields of a product given its documentId; only the fields passed change. Needs the admin role.',
    input: {
      productId: docId('product'),
      name: productFields.name.optional(),
      sku: productFields.sku.optional(),
      price: productFields.price.optional(),
      minPrice: productFields.minPrice,
      description: productFields.description,
      unit: productFields.unit,
      active: productFields.active,
      category: productFields.category,
    },
    output: product,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the product ${a.productId}`,
    run: ({ productId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/products/{id}', { params: { path: { id: productId } }, body: { data: defined(data) } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'delete_product',
    title: 'Delete a product',
    description:
      'Deletes a product permanently, given its documentId. Quote and card lines keep their copied name and SKU. Needs the admin role.',
    input: { productId: docId('product') },
    output: deletedOutput,
    destructive: true,
    idempotent: true,
    summary: (a) => `permanently delete the product ${a.productId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.DELETE('/api/products/{id}', { params: { path: { id: args.productId } } }), apiUrl),
  }),
  readTool({
    name: 'list_product_categories',
    title: 'List product categories',
    description:
      'Lists product categories (documentId and name), paged. Use it to find the category documentId that crm.create_product and crm.list_products take.',
    input: {
      search: z.string().optional().describe('Text contained in the category name (case-insensitive)'),
      ...paging,
    },
    output: listOutput(category),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/product-categories', {
          params: {
            query: {
              ...pagingQuery(args),
              filters: args.search ? { name: { $containsi: args.search } } : {},
            },
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_product_category',
    title: 'Get a product category',
    description: 'Returns one product category by its documentId (from crm.list_product_categories).',
    input: { categoryId: docId('product category') },
    output: category,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/product-categories/{id}', { params: { path: { id: args.categoryId } } }), apiUrl),
  }),
  writeTool({
    name: 'create_product_category',
    title: 'Create a product category',
    description: 'Creates a product category with a name. Needs the admin role.',
    input: { name: z.string().min(1).max(120).describe('Category name') },
    output: category,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the product category "${a.name}"`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.POST('/api/product-categories', { body: { data: { name: args.name } } }), apiUrl),
  }),
  writeTool({
    name: 'update_product_category',
    title: 'Rename a product category',
    description: 'Renames a product category given its documentId. Needs the admin role.',
    input: {
      categoryId: docId('product category'),
      name: z.string().min(1).max(120).describe('New category name'),
    },
    output: category,
    destructive: true,
    idempotent: true,
    summary: (a) => `rename the product category ${a.categoryId} to "${a.name}"`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/product-categories/{id}', {
          params: { path: { id: args.categoryId } },
          body: { data: { name: args.name } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'delete_product_category',
    title: 'Delete a product category',
    description:
      'Deletes a product category permanently, given its documentId; its products stay, without a category. Needs the admin role.',
    input: { categoryId: docId('product category') },
    output: deletedOutput,
    destructive: true,
    idempotent: true,
    summary: (a) => `permanently delete the product category ${a.categoryId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.DELETE('/api/product-categories/{id}', { params: { path: { id: args.categoryId } } }),
        apiUrl,
      ),
  }),
];
