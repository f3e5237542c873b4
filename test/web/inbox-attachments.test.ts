import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MEDIA, SUPPORTED_TYPES } from '../../src/modules/inbox/send.js';
import { MAX_ATTACHMENT_BYTES, MEDIA_LIMITS, MEDIA_TYPES } from '../../web/src/lib/attachment-types.js';
import { addMember, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * Attachments in the inbox, in a real Chromium against the real, listening service and the local WhatsApp Cloud
 * API peer: "Anexar" in the composer picks a file (name and size shown, an optional caption, removable), sends it
 * (POST /api/conversations/{id}/attachments: the peer gets the upload and one media message, even when the first
 * answer is lost: the same Idempotency-Key); a type WhatsApp does not take or a file too big is refused in the
 * browser before any request; the service's refusals (the closed 24-hour window, the provider refusing the file)
 * are shown with their reason. A message with media shows its file and "Baixar", which saves the very bytes (the
 * media route needs the session's token: fetched, then saved from a blob). Viewers download but do not send.
 * Audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: inbox attachments (Chromium)', () => {
  let env: MessagingEnv;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let conv: { id: number };
  let stale: { id: number };
  const from = waNumber();
  // A small PDF, as a person would attach it.
  const pdf = Buffer.from(
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'.repeat(
      12,
    ),
  );
  // A contract the contact sends (inbound media kept by WhatsApp, fetched through the service).
  const contract = Buffer.concat([
    Buffer.from('%PDF-1.7\n'),
    Buffer.alloc(3000, 7),
    Buffer.from('\n%%EOF\n'),
  ]);
  const photo = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const big = join(tmpdir(), `crm-attach-${process.pid}-relatorio.pdf`);

  const signedIn = (user: TestUser, phone = false) =>
    signedInPage(browser, base, user, t.slug, { phone, acceptDownloads: true });
  const thread = (p: Page) => p.locator('[data-testid=messages]');
  /** The message of the thread that carries `name`. */
  const fileMessage = (p: Page, name: string) =>
    thread(p)
      .locator('.msg')
      .filter({ has: p.locator('[data-testid=message-file]', { hasText: name }) });

  /** Clicks "Baixar" on a message's file; the saved file's name and bytes. */
  async function download(p: Page, name: string) {
    const [saved] = await Promise.all([
      p.waitForEvent('download'),
      p.getByRole('button', { name: `Baixar ${name}` }).click(),
    ]);
    return { name: saved.suggestedFilename(), bytes: await readFile((await saved.path())!) };
  }

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const contractId = env.wa.addMedia(contract, 'application/pdf');
    const photoId = env.wa.addMedia(photo, 'image/jpeg');
    await inbound(env, channel, [
      { from, name: 'Helena Prado', text: 'Bom dia! Podem me mandar a proposta?' },
      {
        from,
        name: 'Helena Prado',
        type: 'document',
        document: { id: contractId, mime_type: 'application/pdf', filename: 'contrato-assinado.pdf' },
      },
      { from, name: 'Helena Prado', type: 'image', image: { id: photoId, mime_type: 'image/jpeg' } },
    ]);
    conv = await conversationOf(t.api, from);
    // A contact who wrote 25 hours ago: the window for free text and files is closed.
    const old = waNumber();
    await inbound(env, channel, [
      {
        from: old,
        name: 'Otávio Reis',
        text: 'Obrigado!',
        timestamp: Math.floor(Date.now() / 1000) - 25 * 3600,
      },
    ]);
    stale = await conversationOf(t.api, old);
    viewer = (await addMember(t, 'viewer')).user;
    // A file over 50 MB, sparse: nothing is written but its length.
    await writeFile(big, '');
    await truncate(big, MAX_ATTACHMENT_BYTES + 1024 * 1024);
    browser = await launchBrowser();
    page = await signedIn(t.user);
    // 422: the closed window; 502: WhatsApp refusing a file.
    errors = watchConsole(page, [422, 502]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
    await rm(big, { force: true });
  });

  test("the web app's list of files WhatsApp takes is the service's, each with the service's kind and limit", () => {
    expect(Object.keys(MEDIA_TYPES).sort()).toEqual([...SUPPORTED_TYPES].sort());
    for (const [type, { kind }] of Object.entries(MEDIA_TYPES)) {
      expect(MEDIA[kind].types, type).toContain(type);
      expect(MEDIA_LIMITS[kind], kind).toBe(MEDIA[kind].maxBytes);
    }
  });

  test('a PDF attached with a caption is sent once, even when the first answer is lost; the peer gets its bytes', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await thread(page).getByText('Bom dia! Podem me mandar a proposta?').waitFor();
    await page.getByRole('button', { name: 'Anexar', exact: true }).waitFor();
    await page.setInputFiles('input[name=attachment]', {
      name: 'proposta-comercial.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    const chosen = page.locator('[data-testid=attachment]');
    await chosen.getByText('proposta-comercial.pdf').waitFor();
    // The size in Brazilian numbers (a decimal comma).
    const size = await chosen.locator('[data-testid=attachment-size]').textContent();
    expect(size?.replace(/\s/g, ' ')).toBe(
      `${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format(pdf.length / 1024)} kB`,
    );
    // Removed, then picked again: the reply box comes back in between.
    await chosen.getByRole('button', { name: 'Remover anexo' }).click();
    await page.locator('#reply').waitFor();
    await page.setInputFiles('input[name=attachment]', {
      name: 'proposta-comercial.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.getByLabel('Legenda (opcional)').fill('Segue a proposta, Helena.');
    await shot(page, 'web-135-inbox-attach-chosen');

    const uploadsBefore = env.wa.media.size;
    const sentBefore = env.wa.messages.length;
    const keys: string[] = [];
    const pattern = '**/api/conversations/*/attachments';
    await page.route(pattern, async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (keys.length > 1) return route.fallback();
      // The service uploads and sends; the page never sees the answer (a dropped connection).
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.locator('[data-testid=send-error]').waitFor();
    // The file stays chosen, with its caption, to be sent again.
    expect(await page.getByLabel('Legenda (opcional)').inputValue()).toBe('Segue a proposta, Helena.');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    // Sent: the composer is back to text (the message itself may show sooner: the first send went out, and the
    // thread follows the service's live events).
    await page.locator('#reply').waitFor();
    expect(await page.locator('[data-testid=attachment]').count()).toBe(0);
    expect(await page.locator('[data-testid=send-error]').count()).toBe(0);
    const sent = fileMessage(page, 'proposta-comercial.pdf');
    await sent.getByText('Segue a proposta, Helena.').waitFor();
    expect(await sent.count()).toBe(1);
    await page.unroute(pattern);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);

    // One upload, one media message to the person, with the file's name and the caption.
    expect(env.wa.media.size).toBe(uploadsBefore + 1);
    const [mediaId, upload] = [...env.wa.media.entries()].at(-1)!;
    expect(upload).toEqual({
      type: 'application/pdf',
      filename: 'proposta-comercial.pdf',
      bytes: pdf.length,
    });
    const out = env.wa.messages.slice(sentBefore);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      to: from,
      type: 'document',
      payload: {
        document: { id: mediaId, caption: 'Segue a proposta, Helena.', filename: 'proposta-comercial.pdf' },
      },
    });
    const messages = (await t.api.get(`/conversations/${conv.id}/messages`, { limit: 100 })).body.data;
    expect(messages.filter((m: any) => m.attachments[0]?.filename === 'proposta-comercial.pdf')).toHaveLength(
      1,
    );
    // What WhatsApp keeps is the very file: downloaded back through the message's button.
    const back = await download(page, 'proposta-comercial.pdf');
    expect(back.name).toBe('proposta-comercial.pdf');
    expect(back.bytes.equals(pdf)).toBe(true);
    await shot(page, 'web-135-inbox-attach-sent');
    const reset = errors.findIndex((e) => e.includes('ERR_CONNECTION_RESET'));
    expect(reset).toBeGreaterThanOrEqual(0);
    errors.splice(reset, 1);
  });

  test('a type WhatsApp does not take and files too big are refused in the browser, with no request', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await page.getByRole('button', { name: 'Anexar', exact: true }).waitFor();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/attachments')) asked.push(r.url());
    });
    const refusal = page.locator('[data-testid=send-error]');
    await page.setInputFiles('input[name=attachment]', {
      name: 'instalador.exe',
      mimeType: 'application/x-msdownload',
      buffer: Buffer.from('MZ\x90\x00'),
    });
    await expect
      .poll(() => refusal.textContent())
      .toBe(
        'O WhatsApp não aceita este tipo de arquivo (application/x-msdownload). Envie uma imagem JPEG ou PNG, um áudio, um vídeo MP4 ou 3GP, um PDF, um texto ou um documento do Office.',
      );
    expect(await page.locator('[data-testid=attachment]').count()).toBe(0);
    await shot(page, 'web-135-inbox-attach-refused');
    // An image over WhatsApp's 5 MB for images.
    // Files of megabytes cross to the browser over the DevTools protocol: on a loaded machine that outlasts
    // Playwright's 10 s default (seen in CI), so these two get more.
    await page.setInputFiles(
      'input[name=attachment]',
      { name: 'foto.png', mimeType: 'image/png', buffer: Buffer.alloc(6 * 1024 * 1024, 1) },
      { timeout: 60_000 },
    );
    await expect
      .poll(async () => (await refusal.textContent())?.replace(/\s/g, ' '))
      .toBe('O arquivo tem 6 MB: o WhatsApp aceita arquivos de imagem de até 5 MB.');
    // Anything over 50 MB.
    await page.setInputFiles('input[name=attachment]', big, { timeout: 60_000 });
    await expect
      .poll(async () => (await refusal.textContent())?.replace(/\s/g, ' '))
      .toBe('O arquivo tem 51 MB: o WhatsApp aceita arquivos de documento de até 50 MB.');
    expect(await page.locator('[data-testid=attachment]').count()).toBe(0);
    // A good file afterwards clears the refusal.
    await page.setInputFiles('input[name=attachment]', {
      name: 'notas.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('notas'),
    });
    await page.locator('[data-testid=attachment]').getByText('notas.txt').waitFor();
    expect(await refusal.count()).toBe(0);
    await page.getByRole('button', { name: 'Remover anexo' }).click();
    expect(asked).toEqual([]);
  });

  test("the service's refusals are shown with their reason: the closed window, WhatsApp refusing the file", async () => {
    const uploadsBefore = env.wa.media.size;
    await page.goto(`${base}/app/inbox/${stale.id}`);
    await page.locator('[data-testid=window-closed]').waitFor();
    await page.getByRole('button', { name: 'Texto livre' }).click();
    await page.setInputFiles('input[name=attachment]', {
      name: 'catalogo.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => page.locator('[data-testid=send-error]').textContent())
      .toBe('Fora da janela de 24 horas: envie um modelo aprovado.');
    await page.locator('select[name=template]').waitFor();
    expect(env.wa.media.size).toBe(uploadsBefore);

    // WhatsApp takes the upload, then refuses the media message (131053: the file is not what it says).
    env.wa.failNext(1, 400, '(#131053) Media upload error', 131053);
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await page.setInputFiles('input[name=attachment]', {
      name: 'planilha.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('a;b;c\n1;2;3\n'),
    });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => page.locator('[data-testid=send-error]').textContent())
      .toBe('O WhatsApp recusou o arquivo (código 131053).');
    // The failed message stays in the thread, marked failed, its reason in words (the provider's text is English).
    await fileMessage(page, 'planilha.txt').getByText('Falhou', { exact: false }).waitFor();
    await fileMessage(page, 'planilha.txt').getByText('recusada pelo WhatsApp (código 131053)').waitFor();
  });

  test('a file the contact sent is downloaded through "Baixar": the same bytes, under its name', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    const doc = fileMessage(page, 'contrato-assinado.pdf');
    await doc.waitFor();
    expect(await doc.getAttribute('class')).toContain('incoming');
    const saved = await download(page, 'contrato-assinado.pdf');
    expect(saved.name).toBe('contrato-assinado.pdf');
    expect(saved.bytes.equals(contract)).toBe(true);
    // A photo has no file name: it is named by its kind, with the extension of its type.
    const image = fileMessage(page, 'Imagem');
    const id = await image.getAttribute('data-message-id');
    const pic = await download(page, 'Imagem');
    expect(pic.name).toBe(`Imagem-${id}.jpg`);
    expect(pic.bytes.equals(photo)).toBe(true);
  });

  test('a viewer downloads a file but has no composer to send one', async () => {
    const p = await signedIn(viewer);
    const viewerErrors = watchConsole(p);
    await p.goto(`${base}/app/inbox/${conv.id}`);
    await fileMessage(p, 'contrato-assinado.pdf').waitFor();
    const saved = await download(p, 'contrato-assinado.pdf');
    expect(saved.bytes.equals(contract)).toBe(true);
    expect(await p.getByRole('button', { name: 'Anexar', exact: true }).count()).toBe(0);
    expect(await p.locator('input[type=file]').count()).toBe(0);
    expect(viewerErrors).toEqual([]);
    await p.context().close();
  });

  test('the thread with files and the composer with a file chosen: pt-BR only, accessible, within a 390 px phone', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const consoleErrors = watchConsole(p);
      const name = `web-135-inbox-attach-${phone ? 'phone' : 'desktop'}`;
      await p.goto(`${base}/app/inbox/${conv.id}`);
      await fileMessage(p, 'contrato-assinado.pdf').waitFor();
      await p.setInputFiles('input[name=attachment]', {
        name: 'orcamento-detalhado-com-um-nome-bem-comprido-2025.pdf',
        mimeType: 'application/pdf',
        buffer: pdf,
      });
      await p.getByLabel('Legenda (opcional)').fill('Orçamento atualizado');
      const found = await auditPage(p, {
        english,
        allowed: [t.user.username, t.slug],
        phone,
      });
      if (found.length) problems[name] = found;
      // On the phone the thread is above: the picture shows the last messages and the composer.
      await p.getByRole('button', { name: 'Anexar', exact: true }).scrollIntoViewIfNeeded();
      await shot(p, name);
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
