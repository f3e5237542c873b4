import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A card's comment edited and deleted in the drawer, in pt-BR, end to end: its author opens "Editar" (the focus in
 * the text), leaves with Escape and with "Cancelar" (nothing sent), has a blank text refused at the field, then
 * changes the text and adds a mention with the comment box's member list (read back through the API: the text, the
 * mentions, "editado" on the comment, and exactly one notification for the member added, also after a second edit
 * that keeps her); deletes another comment after the app's confirmation (a first "Cancelar" keeps it). Another
 * member sees neither button on the author's comments, an admin "Excluir" only, and the history none (the API
 * refuses the same). A comment mentioning a member who left the organization is still edited (the unchanged
 * mentions not sent back to be refused); saved unchanged, nothing is sent; a double submit of a new comment posts
 * it once. The editor, its member list open, audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: a comment edited and deleted in the drawer (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let boardId: string;
  let boardName: string;
  let cardId: string;
  let author: Awaited<ReturnType<typeof addMember>>;
  let ana: Awaited<ReturnType<typeof addMember>>;
  let other: Awaited<ReturnType<typeof addMember>>;
  let admin: Awaited<ReturnType<typeof addMember>>;
  let edited: string;
  let doomed: string;

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    author = await addMember(t, 'member');
    ana = await addMember(t, 'member');
    other = await addMember(t, 'member');
    admin = await addMember(t, 'admin');
    for (const [who, name] of [
      [t.user, 'Renata Alves'],
      [author.user, 'Marcos Dias'],
      [ana.user, 'Ana Souza'],
      [other.user, 'Otávio Lima'],
      [admin.user, 'Antônio Brito'],
    ] as const) {
      const api = apiClient(app, { authorization: `Bearer ${who.jwt}` });
      expect((await api.put('/users/me', { name })).status).toBe(200);
    }
    const pipeline = await createPipeline(t.api);
    boardId = pipeline.boardId;
    boardName = pipeline.board.name;
    const shared = await t.api.put(`/boards/${boardId}`, {
      data: { editors: [author.membershipId], members: [ana.membershipId, other.membershipId] },
    });
    expect(shared.status).toBe(200);
    cardId = (await createCard(t.api, boardId, { title: 'Negócio Acme' })).documentId;
    const say = async (content: string) => {
      const res = await author.api.post(`/boards/${boardId}/cards/${cardId}/comments`, { data: { content } });
      expect(res.status).toBe(201);
      return res.body.documentId as string;
    };
    edited = await say('Primeira versão da proposta.');
    doomed = await say('Rascunho que vai sair.');
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
    await drawer.locator('[data-testid=comments] li').first().waitFor();
    return drawer;
  }
  const commentIn = (d: Locator, id: string) =>
    d.locator(`[data-testid=comments] li[data-comment-id="${id}"]`);
  const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');
  const comments = async () =>
    (await t.api.get(`/boards/${boardId}/cards/${cardId}/comments`)).body.data as {
      documentId: string;
      type: string;
      content: string;
      mentions: string[];
      createdAt: string;
      updatedAt: string;
    }[];
  const stored = async (id: string) => (await comments()).find((c) => c.documentId === id);
  const mentionsOfAna = async () =>
    (
      (await ana.api.get('/notifications')).body.data as {
        type: string;
        subject: { commentDocumentId?: string };
      }[]
    ).filter((n) => n.type === 'comment_mention' && n.subject.commentDocumentId === edited);
  const focused = (p: Page) =>
    p.evaluate(() => {
      const el = document.activeElement;
      return el ? `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent ?? ''}` : '';
    });

  test('the author cancels an edit, is refused a blank text at the field, changes the text and adds a mention', async () => {
    const p = await signedIn(author.user);
    const errors = watchConsole(p, [400]);
    const d = await drawerOf(p);
    const item = commentIn(d, edited);
    const editButton = item.getByRole('button', { name: /^Editar o comentário de Marcos Dias \(/ });
    await item.getByRole('button', { name: /^Excluir o comentário de Marcos Dias \(/ }).waitFor();
    expect(await item.getByTestId('comment-edited').count()).toBe(0);
    const editor = item.getByTestId('comment-editor');
    const box = editor.getByLabel('Editar comentário');

    // Escape leaves the text as it was, the drawer open and the focus back on "Editar".
    await editButton.click();
    expect(await box.inputValue()).toBe('Primeira versão da proposta.');
    expect(await focused(p)).toBe('textarea:');
    await p.keyboard.type(' Não vale.');
    await p.keyboard.press('Escape');
    await editor.waitFor({ state: 'detached' });
    expect(await d.count()).toBe(1);
    expect(await focused(p)).toMatch(/^button:Editar o comentário de Marcos Dias/);
    expect(await text(item.locator('p').first())).toBe('Primeira versão da proposta.');
    // "Cancelar" likewise; nothing was sent.
    await editButton.click();
    await box.fill('Também não vale.');
    await editor.getByRole('button', { name: 'Cancelar' }).click();
    await editor.waitFor({ state: 'detached' });
    let saved = await stored(edited);
    expect(saved).toMatchObject({ content: 'Primeira versão da proposta.', mentions: [] });
    expect(saved?.updatedAt).toBe(saved?.createdAt);

    // A blank text: the service's 400, said at the field.
    await editButton.click();
    await box.fill('   ');
    await editor.getByRole('button', { name: 'Salvar' }).click();
    const refusal = editor.locator('.ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await text(refusal)).toBe('Escreva o comentário (até 20.000 caracteres).');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(await box.getAttribute('aria-describedby')).toContain(await refusal.getAttribute('id'));

    // A new text with a mention picked from the member list.
    await box.fill('Proposta revisada, ');
    await box.press('End');
    await p.keyboard.type('@an');
    const list = editor.getByRole('listbox', { name: 'Membros para mencionar' });
    await list.waitFor();
    expect(await list.getByRole('option').allTextContents()).toEqual([
      expect.stringMatching(/^Ana Souza @/),
      expect.stringMatching(/^Antônio Brito @/),
    ]);
    await p.keyboard.press('Enter');
    await list.waitFor({ state: 'detached' });
    await p.keyboard.type('confira.');
    expect(await box.inputValue()).toBe('Proposta revisada, @Ana Souza confira.');
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await p.locator('.ds-toast', { hasText: 'Comentário salvo.' }).first().waitFor();
    await editor.waitFor({ state: 'detached' });
    expect(await item.locator('mark.mention').allTextContents()).toEqual(['@Ana Souza']);
    expect(await text(item.getByTestId('comment-edited'))).toMatch(/^editado às \d{2}:\d{2}$/);
    expect(await focused(p)).toMatch(/^button:Editar o comentário/);
    saved = await stored(edited);
    expect(saved).toMatchObject({
      content: 'Proposta revisada, @Ana Souza confira.',
      mentions: [ana.membershipId],
    });
    expect(saved?.updatedAt).not.toBe(saved?.createdAt);
    expect(await mentionsOfAna()).toHaveLength(1);

    // A second edit keeps Ana (her "@Ana Souza" is still written): her mention stays, and she is not notified twice.
    await editButton.click();
    await box.press('End');
    await p.keyboard.type(' Obrigado.');
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await stored(edited))?.content)
      .toBe('Proposta revisada, @Ana Souza confira. Obrigado.');
    expect((await stored(edited))?.mentions).toEqual([ana.membershipId]);
    expect(await mentionsOfAna()).toHaveLength(1);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('the author deletes a comment after confirming it (a first "Cancelar" keeps it)', async () => {
    const p = await signedIn(author.user);
    const errors = watchConsole(p);
    const d = await drawerOf(p);
    const item = commentIn(d, doomed);
    const remove = item.getByRole('button', { name: /^Excluir o comentário de Marcos Dias/ });
    const confirm = p.locator('dialog[open]');
    await remove.click();
    await confirm.getByRole('heading', { name: 'Excluir este comentário?' }).waitFor();
    expect(await text(confirm)).toContain('Rascunho que vai sair.');
    await confirm.getByRole('button', { name: 'Cancelar' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await d.count()).toBe(1);
    expect(await stored(doomed)).toBeDefined();

    await remove.click();
    await confirm.getByRole('button', { name: 'Excluir' }).click();
    await p.locator('.ds-toast', { hasText: 'Comentário excluído.' }).first().waitFor();
    await item.waitFor({ state: 'detached' });
    expect(await stored(doomed)).toBeUndefined();
    expect(await commentIn(d, edited).count()).toBe(1);
    await expect.poll(() => focused(p)).toBe('h3:Comentários');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('another member sees neither button, an admin "Excluir" only, the history none; the API agrees', async () => {
    const path = `/boards/${boardId}/cards/${cardId}/comments/${edited}`;
    expect((await other.api.put(path, { data: { content: 'Meu agora.' } })).status).toBe(403);
    expect((await other.api.request({ method: 'DELETE', url: `/api${path}` })).status).toBe(403);
    expect((await admin.api.put(path, { data: { content: 'Do admin.' } })).status).toBe(403);
    const system = (await comments()).find((c) => c.type === 'system');
    expect(system).toBeDefined();
    const systemPath = `/boards/${boardId}/cards/${cardId}/comments/${system?.documentId}`;
    expect((await admin.api.request({ method: 'DELETE', url: `/api${systemPath}` })).status).toBe(403);

    for (const [who, user] of [
      ['member', other.user],
      ['admin', admin.user],
    ] as const) {
      const p = await signedIn(user);
      const errors = watchConsole(p);
      const d = await drawerOf(p);
      const item = commentIn(d, edited);
      await item.locator('mark.mention').waitFor();
      // The member may comment (the box is there), not change someone else's comment.
      await d.locator('#new-comment').waitFor();
      if (who === 'member') expect(await item.getByRole('button').count()).toBe(0);
      else
        expect(await item.getByRole('button').allTextContents()).toEqual([
          expect.stringMatching(/^Excluir$/),
        ]);
      const history = d.locator('ul.history li');
      expect(await history.count()).toBeGreaterThan(0);
      expect(await d.locator('ul.history button').count()).toBe(0);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(await stored(edited)).toMatchObject({
      content: 'Proposta revisada, @Ana Souza confira. Obrigado.',
    });
  }, 90_000);

  test('a comment mentioning a member who left is still edited; an unchanged save sends nothing; a double submit posts once', async () => {
    // Lia is mentioned through the API without her name in the text, then leaves the organization.
    const lia = await addMember(t, 'member');
    const kept = await author.api.post(`/boards/${boardId}/cards/${cardId}/comments`, {
      data: { content: 'Combinado com o jurídico.', mentions: [lia.membershipId] },
    });
    expect(kept.status).toBe(201);
    const keptId = kept.body.documentId as string;
    expect((await t.api.delete(`/memberships/${lia.membershipId}`)).status).toBe(200);

    const p = await signedIn(author.user);
    const errors = watchConsole(p);
    const writes: string[] = [];
    p.on('request', (r) => {
      if (['POST', 'PUT'].includes(r.method()) && r.url().includes('/comments')) writes.push(r.method());
    });
    const d = await drawerOf(p);
    const item = commentIn(d, keptId);
    const editButton = item.getByRole('button', { name: /^Editar o comentário de Marcos Dias/ });
    const editor = item.getByTestId('comment-editor');

    // Saved as it was: the editor closes, nothing is sent, the comment is not marked "editado".
    await editButton.click();
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    expect(writes).toEqual([]);
    expect(await item.getByTestId('comment-edited').count()).toBe(0);
    expect((await stored(keptId))?.updatedAt).toBe(kept.body.updatedAt);

    // A new text is saved: the mentions did not change, so Lia's id (no member now) is not sent back to be refused.
    await editButton.click();
    const box = editor.getByLabel('Editar comentário');
    await box.fill('Combinado com o jurídico e o financeiro.');
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await stored(keptId))?.content)
      .toBe('Combinado com o jurídico e o financeiro.');
    expect(writes).toEqual(['PUT']);

    // A double submit of a new comment posts it once.
    writes.length = 0;
    await d.locator('#new-comment').fill('Uma vez só.');
    await d.locator('#new-comment').evaluate((box) => {
      const form = (box as HTMLTextAreaElement).form!;
      form.requestSubmit();
      form.requestSubmit();
    });
    await d.locator('[data-testid=comments] li', { hasText: 'Uma vez só.' }).waitFor();
    await expect.poll(() => d.locator('#new-comment').inputValue()).toBe('');
    expect(writes).toEqual(['POST']);
    expect((await comments()).filter((c) => c.content === 'Uma vez só.')).toHaveLength(1);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('an HTML comment (made through the API) reads as its text, without tags, and is edited and saved as plain text', async () => {
    const made = await author.api.post(`/boards/${boardId}/cards/${cardId}/comments`, {
      data: {
        content:
          '<p>Olá <strong>time</strong>,</p><ul><li>preço</li><li>prazo</li></ul><p>veja <a href="https://exemplo.com/p">a proposta</a><br>até sexta</p>',
        contentFormat: 'html',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.documentId as string;
    const p = await signedIn(author.user);
    const errors = watchConsole(p);
    const d = await drawerOf(p);
    const item = commentIn(d, id);
    const shown = 'Olá time,\n\n• preço\n• prazo\n\nveja a proposta (https://exemplo.com/p)\naté sexta';
    await expect.poll(() => item.locator('p').first().textContent()).toBe(shown);
    expect(await item.innerHTML()).not.toContain('&lt;');
    // One line per paragraph and item, as written (five lines; run together they would take one or two).
    const height = await item
      .locator('p')
      .first()
      .evaluate((el) => (el as HTMLElement).offsetHeight);
    expect(height).toBeGreaterThan(60);
    await item.scrollIntoViewIfNeeded();
    await shot(p, 'web-173-html-comment');

    await item.getByRole('button', { name: /^Editar o comentário de Marcos Dias/ }).click();
    const editor = item.getByTestId('comment-editor');
    const box = editor.getByLabel('Editar comentário');
    await expect.poll(() => box.inputValue()).toBe(shown);
    await expect
      .poll(() => text(editor))
      .toContain(
        'Este comentário veio com formatação; se você mudar o texto, ele será salvo como texto simples.',
      );
    await box.fill('Olá time, fechado: preço e prazo ok.');
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(async () => (await stored(id))?.content).toBe('Olá time, fechado: preço e prazo ok.');
    const saved = (await comments()).find((c) => c.documentId === id) as unknown as { contentFormat: string };
    expect(saved.contentFormat).toBe('plain');
    await expect
      .poll(() => item.locator('p').first().textContent())
      .toBe('Olá time, fechado: preço e prazo ok.');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('the editor with its member list open, audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    // User data: the board's name and the English phase and field names the pipeline factory gives.
    const allowed = [boardName, 'Lost', 'Name'];
    for (const phone of [false, true]) {
      const p = await signedIn(author.user, phone);
      const errors = watchConsole(p);
      const d = await drawerOf(p);
      const item = commentIn(d, edited);
      await item.getByRole('button', { name: /^Editar o comentário/ }).click();
      const box = item.getByLabel('Editar comentário');
      await box.press('End');
      await p.keyboard.type(' @a');
      const list = item.getByRole('listbox', { name: 'Membros para mencionar' });
      await list.waitFor();
      await p.keyboard.press('ArrowDown');
      await list.scrollIntoViewIfNeeded();
      await p.waitForTimeout(200);
      const found = await auditPage(p, { english, allowed, phone });
      if (found.length) problems[phone ? 'phone' : 'desktop'] = found;
      await shot(p, `web-171-comment-edit-list-${phone ? 'phone' : 'desktop'}`);
      if (!phone) {
        // The editor itself, its list closed (Escape closes the list only): the picture of docs/web-app.md.
        await p.keyboard.press('Escape');
        await list.waitFor({ state: 'detached' });
        await item.getByTestId('comment-editor').scrollIntoViewIfNeeded();
        await shot(p, 'web-171-comment-edit');
      }
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);
});
