import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  connect,
  decide,
  fails,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startService,
  type Transport,
  write,
} from './harness.js';

let service: Service;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.close();
});

const missing = 'zzzzzzzzzzzzzzzzzzzzzzzz';

describe.each<Transport>(['stdio', 'http'])('product tools over %s', (transport) => {
  let org: Org;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    org = await newOrg(service);
    ({ client, close } = await connect(transport, mcpEnv(service, org)));
  });
  afterAll(async () => {
    await close?.();
  });

  it('a model-side script cannot complete a write without the person; a call that would fail never asks', async () => {
    const args = { name: 'Sneaky', sku: `SN-${transport}`, price: 10 };
    const first = await call(client, 'crm.create_product', args);
    expect(first.structuredContent?.status).toBe('confirmation_required');
    const token = first.structuredContent!.confirmationToken;
    // Repeating with the token, and approving with the API token the server holds, both leave it undone.
    expect(
      (await call(client, 'crm.create_product', { ...args, confirmationToken: token })).structuredContent
        ?.status,
    ).toBe('confirmation_required');
    expect((await org.call('POST', `/agent-confirmations/${token}/approve`)).status).toBe(403);
    expect(
      (await call(client, 'crm.create_product', { ...args, confirmationToken: token })).structuredContent
        ?.status,
    ).toBe('confirmation_required');
    expect((await org.call('GET', '/products')).body.data.map((p: any) => p.sku)).not.toContain(args.sku);
    // The person approves: now it completes.
    await decide(first.structuredContent!.confirmationUrl);
    const done = await call(client, 'crm.create_product', { ...args, confirmationToken: token });
    expect(done.structuredContent).toMatchObject({ status: 'completed', result: { sku: args.sku } });
    // Would fail (duplicate SKU; unknown product): the error at once, no confirmation asked.
    const dup = await call(client, 'crm.create_product', { ...args, name: 'Twin' });
    expect(dup.isError).toBe(true);
    expect(JSON.parse((dup.content as any)[0].text).error).toMatchObject({ status: 400 });
    const gone = await call(client, 'crm.delete_product', { productId: missing });
    expect(JSON.parse((gone.content as any)[0].text).error).toMatchObject({ status: 404 });
  });

  it('categories: create, list, get, rename, delete', async () => {
    const cat = await write(client, 'crm.create_product_category', { name: 'Hardware' });
    expect(cat).toMatchObject({ name: 'Hardware', documentId: expect.any(String) });
    const list = await read(client, 'crm.list_product_categories', { search: 'hard' });
    expect(list.data.map((c: any) => c.documentId)).toEqual([cat.documentId]);
    expect(list.meta.pagination.total).toBe(1);
    expect(await read(client, 'crm.get_product_category', { categoryId: cat.documentId })).toMatchObject({
      name: 'Hardware',
    });
    const renamed = await write(client, 'crm.update_product_category', {
      categoryId: cat.documentId,
      name: 'Tools',
    });
    expect(renamed.name).toBe('Tools');
    expect(await write(client, 'crm.delete_product_category', { categoryId: cat.documentId })).toEqual({
      documentId: cat.documentId,
      deleted: true,
    });
    expect((await org.call('GET', `/product-categories/${cat.documentId}`)).status).toBe(404);
  });

  it('categories: errors carry the service status, name and message', async () => {
    await fails(client, 'crm.get_product_category', { categoryId: missing }, 404, 'NotFoundError');
    await fails(
      client,
      'crm.update_product_category',
      { categoryId: missing, name: 'x' },
      404,
      'NotFoundError',
    );
    await fails(client, 'crm.delete_product_category', { categoryId: missing }, 404, 'NotFoundError');
    await write(client, 'crm.create_product_category', { name: 'Dup' });
    const dup = await fails(client, 'crm.create_product_category', { name: 'Dup' }, 400);
    expect(JSON.stringify(dup.details)).toContain('name');
    await fails(
      client,
      'crm.list_product_categories',
      { pageSize: 100, sort: 'nope:asc' },
      400,
      'ValidationError',
    );
  });

  it('products: create, list, search, get, update, delete', async () => {
    const cat = await write(client, 'crm.create_product_category', { name: 'Services' });
    const p = await write(client, 'crm.create_product', {
      name: 'Consulting hour',
      sku: 'CONS-1',
      price: 120.5,
      minPrice: 100,
      unit: 'h',
      category: cat.documentId,
    });
    expect(p).toMatchObject({
      sku: 'CONS-1',
      price: 120.5,
      active: true,
      category: { documentId: cat.documentId },
    });
    const found = await read(client, 'crm.list_products', { search: 'cons-', active: true });
    expect(found.data.map((x: any) => x.documentId)).toEqual([p.documentId]);
    const inCat = await read(client, 'crm.list_products', { category: cat.documentId });
    expect(inCat.meta.pagination.total).toBe(1);
    expect(await read(client, 'crm.get_product', { productId: p.documentId })).toMatchObject({
      name: 'Consulting hour',
    });
    const updated = await write(client, 'crm.update_product', {
      productId: p.documentId,
      price: 130,
      active: false,
    });
    expect(updated).toMatchObject({ price: 130, active: false, sku: 'CONS-1' });
    expect(await write(client, 'crm.delete_product', { productId: p.documentId })).toMatchObject({
      deleted: true,
    });
    expect((await org.call('GET', `/products/${p.documentId}`)).status).toBe(404);
  });

  it('products: a duplicate SKU names the key; unknown ids are 404; bad input names the field', async () => {
    await write(client, 'crm.create_product', { name: 'A', sku: 'SKU-1', price: 1 });
    const dup = await fails(client, 'crm.create_product', { name: 'B', sku: 'SKU-1', price: 2 }, 400);
    expect(JSON.stringify(dup.details)).toContain('sku');
    const bad = await fails(client, 'crm.create_product', { name: 'C', sku: 'SKU-2', price: 1.234 }, 400);
    expect(JSON.stringify(bad.details)).toContain('price');
    await fails(client, 'crm.get_product', { productId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.update_product', { productId: missing, price: 1 }, 404, 'NotFoundError');
    await fails(client, 'crm.delete_product', { productId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.list_products', { sort: 'secret:asc' }, 400, 'ValidationError');
  });
});
