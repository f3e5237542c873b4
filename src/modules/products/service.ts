import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound, onUnique, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { loadBoardForRead, loadBoardForWrite } from '../boards/index.js';
import { cardVisibility, findCard, requireCardEdit, updateCardRow } from '../cards/index.js';
import { type LineInput, priceLines } from './pricing.js';
import * as repo from './repo.js';
import type {
  CardLine,
  CardLineUpdate,
  LineInputBody,
  Product,
  ProductInput,
  ProductUpdate,
} from './schema.js';

export function toProduct(row: repo.ProductRow): Product {
  return {
    documentId: row.documentId,
    name: row.name,
    sku: row.sku,
    price: row.price,
    minPrice: row.minPrice,
    description: row.description,
    unit: row.unit,
    active: row.active,
    category:
      row.categoryDocumentId && row.categoryName
        ? { documentId: row.categoryDocumentId, name: row.categoryName }
        : null,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

export async function listProducts(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(repo.productModel, query, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listProducts(tx, ctx.orgId, q));
  return listPage(rows.map(toProduct), total, q);
}

export async function getProduct(ctx: TenantContext, documentId: string) {
  const row = await ctx.transaction((tx) => repo.findProduct(tx, ctx.orgId, documentId));
  if (!row) throw notFound('Product');
  return toProduct(row);
}

export async function createProduct(ctx: TenantContext, input: ProductInput) {
  requireRole(ctx, 'admin');
  checkMinPrice(input.price, input.minPrice ?? null);
  return ctx.transaction(async (tx) => {
    const { category, ...values } = input;
    const row = await repo
      .insertProduct(tx, ctx.orgId, { ...values, categoryId: await categoryId(tx, ctx, category) })
      .catch(onWriteError);
    await audit(tx, ctx, 'product.created', row.documentId);
    return toProduct(row);
  });
}

export async function updateProduct(ctx: TenantContext, documentId: string, input: ProductUpdate) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const current = await repo.findProduct(tx, ctx.orgId, documentId);
    if (!current) throw notFound('Product');
    checkMinPrice(
      input.price ?? current.price,
      input.minPrice === undefined ? current.minPrice : input.minPrice,
    );
    const { category, ...values } = input;
    const patch =
      category === undefined ? values : { ...values, categoryId: await categoryId(tx, ctx, category) };
    await repo.updateProduct(tx, ctx.orgId, current.id, patch).catch(onWriteError);
    await audit(tx, ctx, 'product.updated', documentId, { fields: Object.keys(input) });
    return toProduct((await repo.findProduct(tx, ctx.orgId, documentId))!);
  });
}

export async function deleteProduct(ctx: TenantContext, documentId: string) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findProduct(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Product');
    await repo.deleteProduct(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'product.deleted', documentId, { sku: row.sku, name: row.name });
    return { documentId, deleted: true as const };
  });
}

function checkMinPrice(price: number, minPrice: number | null) {
  if (minPrice !== null && minPrice > price) {
    throw validationError('minPrice cannot exceed price', [
      { path: ['minPrice'], message: `must be at most the price (${price})` },
    ]);
  }
}

async function categoryId(tx: Tx, ctx: TenantContext, documentId: string | null | undefined) {
  if (documentId == null) return null;
  const id = await repo.categoryIdByDocumentId(tx, ctx.orgId, documentId);
  if (id === undefined) throw categoryNotFound();
  return id;
}

const categoryNotFound = () =>
  notFound('Product category', {
    errors: [{ path: ['category'], message: 'no such product category' }],
  });

/** A duplicate SKU is a 400 naming the key; a category deleted meanwhile (23503) is a 404. */
function onWriteError(err: unknown): never {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as any)?.cause?.code;
  if (code === '23503') throw categoryNotFound();
  return onUnique('sku')(err);
}

// ---- products on cards

/**
 * The card of a board-nested line route, with the cards area's access rules: 404 when the board or
 * card is invisible to the caller (boards they are not on; assignee-restricted boards), 403 when it is
 * visible but not writable. Writes also need the board's `enableProducts` (422 otherwise).
 */
async function openCard(tx: Tx, ctx: TenantContext, boardId: string, cardId: string, write: boolean) {
  const access = write ? await loadBoardForWrite(tx, ctx, boardId) : await loadBoardForRead(tx, ctx, boardId);
  const { board } = access;
  const card = await findCard(tx, ctx.orgId, board.id, cardId, cardVisibility(ctx, access), write);
  if (!card) throw notFound('Card');
  if (!write) return { board, card };
  if (!board.enableProducts) {
    throw new AppError('UnprocessableEntityError', 'This board does not enable products on its cards', {
      board: board.documentId,
      setting: 'enableProducts',
    });
  }
  await requireCardEdit(tx, ctx, access, card.id);
  return { board, card };
}

function toCardLine(row: repo.CardLineRow): CardLine {
  return {
    documentId: row.documentId,
    product: row.productDocumentId,
    name: row.name,
    sku: row.sku,
    unit: row.unit,
    quantity: row.quantity,
    unitPrice: row.unitPrice,
    discount: row.discount,
    total: row.total,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/** With `autoUpdateCardValue`, the card's value is the total of its lines, kept in the same transaction. */
async function syncCardValue(
  tx: Tx,
  ctx: TenantContext,
  board: { autoUpdateCardValue: boolean },
  cardId: number,
) {
  if (!board.autoUpdateCardValue) return;
  const { total } = await repo.cardLineTotals(tx, ctx.orgId, cardId);
  await updateCardRow(tx, ctx.orgId, cardId, { value: total });
}

async function priceLine(tx: Tx, ctx: TenantContext, line: LineInput) {
  const { lines } = await priceLines(tx, ctx.orgId, [line], () => []);
  const { gross, discountAmount, productId, ...values } = lines[0];
  return { productId, ...values };
}

export async function listCardLines(
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  query: ListQueryInput,
) {
  const q = compileListQuery(repo.cardLineModel, query, 'createdAt:asc');
  return ctx.transaction(async (tx) => {
    const { card } = await openCard(tx, ctx, boardId, cardId, false);
    const { rows, total } = await repo.listCardLines(tx, ctx.orgId, card.id, q);
    const totals = await repo.cardLineTotals(tx, ctx.orgId, card.id);
    const page = listPage(rows.map(toCardLine), total, q);
    return { data: page.data, meta: { ...page.meta, totals } };
  });
}

export async function addCardLine(ctx: TenantContext, boardId: string, cardId: string, input: LineInputBody) {
  return ctx.transaction(async (tx) => {
    const { board, card } = await openCard(tx, ctx, boardId, cardId, true);
    const row = await repo.insertCardLine(tx, ctx.orgId, card.id, await priceLine(tx, ctx, input));
    await syncCardValue(tx, ctx, board, card.id);
    await audit(tx, ctx, 'card_product.created', row.documentId, { card: card.documentId, sku: row.sku });
    return toCardLine(row);
  });
}

export async function updateCardLine(
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  documentId: string,
  input: CardLineUpdate,
) {
  return ctx.transaction(async (tx) => {
    const { board, card } = await openCard(tx, ctx, boardId, cardId, true);
    const current = await repo.findCardLine(tx, ctx.orgId, card.id, documentId);
    if (!current) throw notFound('Card product line');
    const product = input.product ?? current.productDocumentId;
    if (!product) {
      throw new AppError(
        'UnprocessableEntityError',
        'The product of this line was deleted: choose another product or delete the line',
        { errors: [{ path: ['product'], message: 'the product no longer exists' }] },
      );
    }
    const productChanged = input.product !== undefined && input.product !== current.productDocumentId;
    const values = await priceLine(tx, ctx, {
      product,
      quantity: input.quantity ?? current.quantity,
      unitPrice: input.unitPrice ?? (productChanged ? undefined : current.unitPrice),
      discount: input.discount ?? current.discount,
    });
    await repo.updateCardLine(tx, ctx.orgId, current.id, values);
    await syncCardValue(tx, ctx, board, card.id);
    await audit(tx, ctx, 'card_product.updated', documentId, { fields: Object.keys(input) });
    return toCardLine((await repo.findCardLine(tx, ctx.orgId, card.id, documentId))!);
  });
}

export async function deleteCardLine(
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  documentId: string,
) {
  return ctx.transaction(async (tx) => {
    const { board, card } = await openCard(tx, ctx, boardId, cardId, true);
    const current = await repo.findCardLine(tx, ctx.orgId, card.id, documentId);
    if (!current) throw notFound('Card product line');
    await repo.deleteCardLine(tx, ctx.orgId, current.id);
    await syncCardValue(tx, ctx, board, card.id);
    await audit(tx, ctx, 'card_product.deleted', documentId, { card: card.documentId, sku: current.sku });
    return { documentId, deleted: true as const };
  });
}
