import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * Mentions in a card's comments and a card line's discount changed in the drawer, in pt-BR, end to end: a member
 * types "@an" in the comment box, the organization's members come up in a listbox, the arrows move and Enter writes
 * "@Ana Souza" (the comment read back through the API has `mentions` = her membership, and shows the mention
 * marked); a mention deleted from the text before sending is not sent; Escape closes the list and leaves the drawer
 * open; a line's discount changed next to its quantity and price (the line and the totals read back through the
 * API), a discount over 100 and one that takes the price below the product's minimum refused at the field; a viewer
 * has neither the comment box nor the line fields, and the API refuses both writes; the drawer audited with the
 * listbox open on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)(
  'web app: mentions in comments and a line’s discount in the drawer (Chromium)',
  () => {
    let app: FastifyInstance;
    let base: string;
    let t: Tenant;
    let browser: Browser;
    let boardId: string;
    let boardName: string;
    let cardId: string;
    let lineId: string;
    let member: { email: string; password: string };
    let viewer: Awaited<ReturnType<typeof addMember>>;
    let ana: string;
    let antonio: string;

    beforeAll(async () => {
      await ensureWebBuild();
      app = await buildApp({ config: testConfig(), db: (await getApp()).db });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      t = await newTenant(app);
      const m = await addMember(t, 'member');
      const a = await addMember(t, 'member');
      const b = await addMember(t, 'admin');
      viewer = await addMember(t, 'viewer');
      member = m.user;
      ana = a.membershipId;
      antonio = b.membershipId;
      // Display names, as people choose them (the mention writes the name).
      for (const [who, name] of [
        [t.user, 'Renata Alves'],
        [m.user, 'Marcos Dias'],
        [a.user, 'Ana Souza'],
        [b.user, 'Antônio Brito'],
        [viewer.user, 'Vera Lúcia'],
      ] as const) {
        const api = apiClient(app, { authorization: `Bearer ${who.jwt}` });
        expect((await api.put('/users/me', { name })).status).toBe(200);
      }
      const pipeline = await createPipeline(t.api, { enableProducts: true });
      boardId = pipeline.boardId;
      boardName = pipeline.board.name;
      const shared = await t.api.put(`/boards/${boardId}`, {
        data: { editors: [m.membershipId], members: [viewer.membershipId] },
      });
      expect(shared.status).toBe(200);
      cardId = (await createCard(t.api, boardId, { title: 'Negócio Acme' })).documentId;
      const impl = await t.api.post('/products', {
        data: { name: 'Implantação', sku: 'IMPL', price: 500, minPrice: 400 },
      });
      const treino = await t.api.post('/products', {
        data: { name: 'Treinamento', sku: 'TREINO', price: 80 },
      });
      expect([impl.status, treino.status]).toEqual([201, 201]);
      const path = `/boards/${boardId}/cards/${cardId}/products`;
      const line = await t.api.post(path, { data: { product: impl.body.documentId, quantity: 2 } });
      expect(line.status).toBe(201);
      lineId = line.body.documentId;
      expect(
        (await t.api.post(path, { data: { product: treino.body.documentId, quantity: 1, discount: 5 } }))
          .status,
      ).toBe(201);
      browser = await launchBrowser();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
    });

    const signedIn = (who: { email: string; password: string }, phone = false) =>
      signedInPage(browser, base, who, t.slug, { phone });
    async function drawerOf(p: Page) {
      await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
      const drawer = p.locator('[data-testid=card-drawer]');
      await drawer.locator('[data-testid=card-products] [data-line-id]').first().waitFor();
      return drawer;
    }
    const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');
    const toast = (p: Page, words: string) => p.locator('.ds-toast', { hasText: words }).first().waitFor();
    const userComments = async () =>
      (
        (await t.api.get(`/boards/${boardId}/cards/${cardId}/comments`)).body.data as {
          type: string;
          content: string;
          mentions: string[];
        }[]
      ).filter((c) => c.type === 'user');
    const lines = async () => (await t.api.get(`/boards/${boardId}/cards/${cardId}/products`)).body;

    test('a member mentions Ana with the keyboard; a mention deleted before sending is not sent', async () => {
      const p = await signedIn(member);
      const errors = watchConsole(p);
      const d = await drawerOf(p);
      const box = d.locator('#new-comment');
      const list = d.getByRole('listbox', { name: 'Membros para mencionar' });
      await box.click();
      await p.keyboard.type('Olá @an');
      await list.waitFor();
      // "an" starts Ana's and Antônio's names (accents aside), in the organization's order.
      expect(await list.getByRole('option').allTextContents()).toEqual([
        expect.stringMatching(/^Ana Souza @u/),
        expect.stringMatching(/^Antônio Brito @u/),
      ]);
      const activeName = async () => {
        const id = await box.getAttribute('aria-activedescendant');
        return id ? ((await p.locator(`[id="${id}"]`).textContent()) ?? '').split(' @')[0] : null;
      };
      expect(await box.getAttribute('aria-autocomplete')).toBe('list');
      expect(await box.getAttribute('aria-controls')).toBe(await list.getAttribute('id'));
      expect(await activeName()).toBe('Ana Souza');
      await p.keyboard.press('ArrowDown');
      expect(await activeName()).toBe('Antônio Brito');
      expect(await list.getByRole('option', { selected: true }).textContent()).toMatch(/^Antônio Brito/);
      await p.keyboard.press('ArrowDown');
      expect(await activeName()).toBe('Ana Souza');
      await p.keyboard.press('ArrowUp');
      await p.keyboard.press('ArrowUp');
      expect(await activeName()).toBe('Ana Souza');
      await p.keyboard.press('Enter');
      await list.waitFor({ state: 'detached' });
      expect(await box.inputValue()).toBe('Olá @Ana Souza ');
      expect(await box.getAttribute('aria-activedescendant')).toBeNull();
      await p.keyboard.type('veja a proposta.');
      await box.scrollIntoViewIfNeeded();
      await shot(p, 'web-165-mention-typed');
      await d.getByRole('button', { name: 'Comentar' }).click();
      const posted = d.locator('[data-testid=comments] li', { hasText: 'veja a proposta.' });
      await posted.waitFor();
      expect(await posted.locator('mark.mention').allTextContents()).toEqual(['@Ana Souza']);
      let sent = await userComments();
      expect(sent).toEqual([
        expect.objectContaining({ content: 'Olá @Ana Souza veja a proposta.', mentions: [ana] }),
      ]);
      expect(await box.inputValue()).toBe('');

      // Two mentions, then Antônio's deleted from the text: only Ana is sent.
      await box.click();
      await p.keyboard.type('@ant');
      await list.waitFor();
      expect(await list.getByRole('option').allTextContents()).toEqual([
        expect.stringMatching(/^Antônio Brito/),
      ]);
      await p.keyboard.press('Enter');
      await p.keyboard.type('e @ana');
      await list.waitFor();
      await p.keyboard.press('Enter');
      await p.keyboard.type('revisem.');
      expect(await box.inputValue()).toBe('@Antônio Brito e @Ana Souza revisem.');
      // Escape on an open list closes the list, not the drawer.
      await p.keyboard.type(' @b');
      await list.waitFor();
      await p.keyboard.press('Escape');
      await list.waitFor({ state: 'detached' });
      expect(await d.count()).toBe(1);
      await box.fill('@Ana Souza revise, por favor.');
      await d.getByRole('button', { name: 'Comentar' }).click();
      await d.locator('[data-testid=comments] li', { hasText: 'revise, por favor.' }).waitFor();
      sent = await userComments();
      expect(sent[1]).toMatchObject({ content: '@Ana Souza revise, por favor.', mentions: [ana] });
      expect(sent[1].mentions).not.toContain(antonio);

      // A mention made through the API without the name in the text is listed under the comment.
      expect(
        (
          await t.api.post(`/boards/${boardId}/cards/${cardId}/comments`, {
            data: { content: 'Proposta enviada.', mentions: [antonio] },
          })
        ).status,
      ).toBe(201);
      await p.reload();
      const viaApi = p.locator('[data-testid=comments] li', { hasText: 'Proposta enviada.' });
      await viaApi.waitFor();
      // The names come with the members, a request beside the comments'.
      await expect.poll(() => text(viaApi)).toContain('Mencionados: Antônio Brito');
      await p.locator('#new-comment').scrollIntoViewIfNeeded();
      await shot(p, 'web-165-comment-mentions');
      expect(errors).toEqual([]);
      await p.context().close();
    }, 120_000);

    test('a member changes a line’s discount; refusals at the field', async () => {
      const p = await signedIn(member);
      const errors = watchConsole(p, [400, 422]);
      const d = await drawerOf(p);
      const s = d.getByTestId('card-products');
      const totals = s.getByTestId('card-products-totals');
      const impl = s.getByRole('form', { name: 'Linha de Implantação' });
      const discount = impl.getByLabel('Desconto (%)');
      expect(await discount.inputValue()).toBe('0');
      // 2 × 500 + 1 × 80 − 5 %: 1.080,00 less 4,00.
      expect(await text(totals)).toContain('R$ 1.076,00');

      // Over 100 %: the service's 400, said at the field; nothing changed.
      await discount.fill('150');
      await impl.getByRole('button', { name: 'Salvar a linha de Implantação' }).click();
      const refusal = impl.locator('.ds-field.has-error .ds-error');
      await refusal.waitFor();
      expect(await text(refusal)).toBe('O desconto vai de 0 a 100%, com até duas casas decimais.');
      expect(await discount.getAttribute('aria-invalid')).toBe('true');
      await shot(p, 'web-165-discount-refused');
      expect((await lines()).data[0].discount).toBe(0);

      // 30 % takes 500 to 350, below the product's minimum of 400: the 422 at the discount, which caused it.
      await discount.fill('30');
      expect(await impl.locator('.ds-field.has-error').count()).toBe(0);
      await impl.getByRole('button', { name: 'Salvar a linha de Implantação' }).click();
      await refusal.waitFor();
      expect(await text(refusal)).toBe('Preço R$ 350,00 abaixo do mínimo R$ 400,00 de IMPL.');
      expect(await discount.getAttribute('aria-invalid')).toBe('true');
      expect((await lines()).data[0].discount).toBe(0);

      // 12,5 %: saved; the line and the totals follow.
      await discount.fill('12,5');
      await impl.getByRole('button', { name: 'Salvar a linha de Implantação' }).click();
      await toast(p, 'Linha salva.');
      await expect.poll(() => text(impl.getByTestId('line-total'))).toBe('R$ 875,00');
      await expect.poll(() => text(totals)).toContain('R$ 951,00');
      expect(await text(totals)).toContain('R$ 129,00');
      expect(
        await s.getByRole('form', { name: 'Linha de Implantação' }).getByLabel('Desconto (%)').inputValue(),
      ).toBe('12,5');
      const body = await lines();
      expect(body.data.find((l: { documentId: string }) => l.documentId === lineId)).toMatchObject({
        sku: 'IMPL',
        quantity: 2,
        unitPrice: 500,
        discount: 12.5,
        total: 875,
      });
      expect(body.meta.totals).toEqual({ subtotal: 1080, discount: 129, total: 951 });
      await shot(p, 'web-165-discount-saved');
      expect(errors).toEqual([]);
      await p.context().close();
    }, 120_000);

    test('a viewer reads the mentions, and can neither comment nor change a line', async () => {
      const path = `/boards/${boardId}/cards/${cardId}`;
      const said = await viewer.api.post(`${path}/comments`, {
        data: { content: 'Oi @Ana Souza', mentions: [ana] },
      });
      expect(said.status).toBe(403);
      const changed = await viewer.api.put(`${path}/products/${lineId}`, { data: { discount: 1 } });
      expect(changed.status).toBe(403);
      expect((await userComments()).map((c) => c.content)).not.toContain('Oi @Ana Souza');
      expect((await lines()).data[0].discount).toBe(12.5);
      // An unknown member is refused by the service (what the box never sends).
      const unknown = await t.api.post(`${path}/comments`, { data: { content: 'x', mentions: ['nobody'] } });
      expect(unknown.status).toBe(400);

      const p = await signedIn(viewer.user);
      const errors = watchConsole(p);
      const d = await drawerOf(p);
      const first = d.locator('[data-testid=comments] li', { hasText: 'veja a proposta.' });
      await first.waitFor();
      await expect.poll(() => first.locator('mark.mention').allTextContents()).toEqual(['@Ana Souza']);
      expect(await d.locator('#new-comment').count()).toBe(0);
      expect(await d.getByRole('button', { name: 'Comentar' }).count()).toBe(0);
      const s = d.getByTestId('card-products');
      expect(await s.locator('input, select, textarea').count()).toBe(0);
      expect(await text(s.locator('[data-line-id]').first())).toMatch(/12,5\s?% de desconto/);
      expect(errors).toEqual([]);
      await p.context().close();
    }, 60_000);

    test('audited with the listbox open on a desktop and a phone', async () => {
      const problems: Record<string, string[]> = {};
      const english = englishCatalogue();
      // User data: the board's name, the SKUs, and the English phase and field names the pipeline factory gives.
      const allowed = [boardName, 'IMPL', 'TREINO', 'Lost', 'Name'];
      for (const phone of [false, true]) {
        const p = await signedIn(t.user, phone);
        const errors = watchConsole(p);
        const d = await drawerOf(p);
        const box = d.locator('#new-comment');
        await box.scrollIntoViewIfNeeded();
        await box.click();
        await p.keyboard.type('Falar com @a');
        const list = d.getByRole('listbox', { name: 'Membros para mencionar' });
        await list.waitFor();
        await p.keyboard.press('ArrowDown');
        await list.scrollIntoViewIfNeeded();
        await p.waitForTimeout(200);
        const found = await auditPage(p, { english, allowed, phone });
        if (found.length) problems[phone ? 'phone' : 'desktop'] = found;
        await shot(p, `web-165-mention-listbox-${phone ? 'phone' : 'desktop'}`);
        expect(errors).toEqual([]);
        await p.context().close();
      }
      expect(problems).toEqual({});
    }, 120_000);
  },
);
