import { deflateSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant, type Tenant } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/** A PNG file of `width` × `height` RGB pixels (the format written by hand: signature, IHDR, one IDAT, IEND). */
function png(width: number, height: number, color: (x: number, y: number) => [number, number, number]) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(4 + typed.length + 4);
    out.writeUInt32BE(data.length, 0);
    typed.copy(out, 4);
    out.writeUInt32BE(crc32(typed), 4 + typed.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  const row = width * 3 + 1;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(color(x, y), y * row + 1 + x * 3);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A shop front: sky, a terracotta wall with two windows and a door, the pavement. */
const shopFront = png(480, 300, (x, y) => {
  if (y < 110) return [120 + Math.round(y / 2), 170 + Math.round(y / 3), 230];
  if (y > 270) return [150, 150, 150];
  const window = y > 140 && y < 210 && ((x > 60 && x < 170) || (x > 310 && x < 420));
  if (window) return [40, 70, 110];
  if (x > 215 && x < 265 && y > 160) return [70, 45, 30];
  return [190, 95, 60];
});
/** A sticker as WhatsApp sends them, a WebP (160 × 160: a smiling face), encoded by the browser's own canvas. */
async function stickerOf(browser: Browser): Promise<Buffer> {
  const p = await browser.newPage();
  const base64 = await p.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 160;
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#f6c445';
    g.beginPath();
    g.arc(80, 80, 72, 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = '#3b2b10';
    g.fillRect(52, 55, 14, 22);
    g.fillRect(94, 55, 14, 22);
    g.lineWidth = 8;
    g.strokeStyle = '#3b2b10';
    g.beginPath();
    g.arc(80, 88, 36, 0.15 * Math.PI, 0.85 * Math.PI);
    g.stroke();
    return canvas.toDataURL('image/webp').split(',')[1];
  });
  await p.close();
  return Buffer.from(base64, 'base64');
}

/**
 * Images in the inbox, in a real Chromium against the real, listening service and the local WhatsApp Cloud API
 * peer: an image (and a sticker) a contact sends, and one a member sends, show in the thread as thumbnails drawn from
 * the bytes of GET /api/conversations/{id}/messages/{messageId}/media (the session's token; a blob URL), at most
 * 240 px wide with their aspect ratio, the caption below and "Baixar" kept; a click opens the picture larger in a
 * dialog that Escape closes. A media WhatsApp no longer has (its URL answers 404) falls back to the name and
 * "Baixar" with the reason. A long thread fetches only the pictures near what it shows, each once. Audited on a
 * desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: inbox images (Chromium)', () => {
  let env: MessagingEnv;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let conv: { id: number };
  let long: { id: number };
  /** Message ids of the first conversation, by what they carry. */
  const ids: Record<'photo' | 'sticker' | 'expired' | 'sent', number> = {
    photo: 0,
    sticker: 0,
    expired: 0,
    sent: 0,
  };
  /** The media ids of the long conversation's pictures, oldest first. */
  const gallery: string[] = [];
  const caption = 'Fachada da loja na Rua Augusta';

  const thread = (p: Page) => p.locator('[data-testid=messages]');
  const bubble = (p: Page, id: number) => thread(p).locator(`li[data-message-id="${id}"]`);
  /** A thumbnail by its message's caption. */
  const picture = (p: Page, caption: string) =>
    thread(p)
      .locator('li')
      .filter({ has: p.getByText(caption, { exact: true }) })
      .locator('button img');
  /** Waits for the bubble's picture to be drawn (decoded, with a width); its <img>. */
  async function drawn(p: Page, id: number): Promise<Locator> {
    const img = bubble(p, id).locator('button img');
    await img.waitFor();
    await expect
      .poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth))
      .toBeGreaterThan(0);
    return img;
  }
  /** How many of the long conversation's pictures the WhatsApp peer was asked for (GET /{media-id}). */
  const fetched = () =>
    gallery.filter((m) => env.wa.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/${m}`))).length;
  /** Every request the peer got for the long conversation's pictures (the media's lookup and its bytes). */
  const galleryRequests = () =>
    env.wa.requests.filter((r) => gallery.some((m) => r.path.includes(`/${m}`))).length;

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    browser = await launchBrowser();
    const sticker = await stickerOf(browser);
    expect(sticker.subarray(8, 12).toString('latin1')).toBe('WEBP');
    const photoId = env.wa.addMedia(shopFront, 'image/png');
    const stickerId = env.wa.addMedia(sticker, 'image/webp');
    const expiredId = env.wa.addMedia(shopFront, 'image/png');
    env.wa.expireMedia(expiredId);
    await inbound(env, channel, [
      { from, name: 'Helena Prado', type: 'image', image: { id: expiredId, mime_type: 'image/png' } },
      { from, name: 'Helena Prado', text: 'Bom dia! Olha como ficou a loja nova.' },
      { from, name: 'Helena Prado', type: 'image', image: { id: photoId, mime_type: 'image/png', caption } },
      { from, name: 'Helena Prado', type: 'sticker', sticker: { id: stickerId, mime_type: 'image/webp' } },
    ]);
    conv = await conversationOf(t.api, from);
    // A picture a member sends (inside the 24-hour window the contact just opened), without a caption.
    const sent = await t.api.post(`/conversations/${conv.id}/attachments`, {
      data: { base64: shopFront.toString('base64'), filename: 'vitrine-nova.png', mimeType: 'image/png' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    ids.sent = sent.body.id;
    const messages = (await t.api.get(`/conversations/${conv.id}/messages`, { limit: 100 })).body.data;
    const byMedia = (m: string) => messages.find((x: any) => x.attachments[0]?.mediaId === m).id;
    ids.photo = byMedia(photoId);
    ids.sticker = byMedia(stickerId);
    ids.expired = byMedia(expiredId);

    // A long conversation: twelve pictures, then eighteen messages of text below them (one page of 30).
    const other = waNumber();
    for (let i = 0; i < 12; i++)
      gallery.push(
        env.wa.addMedia(
          png(160, 120, (x, y) => [(i * 20) % 256, (x + y) % 256, 200 - i * 10]),
          'image/png',
        ),
      );
    await inbound(env, channel, [
      ...gallery.map((id, i) => ({
        from: other,
        name: 'Bruno Lima',
        type: 'image',
        image: { id, mime_type: 'image/png', caption: `Modelo ${i + 1}` },
      })),
      ...Array.from({ length: 18 }, (_, i) => ({
        from: other,
        name: 'Bruno Lima',
        text: `Mensagem ${i + 1}: qual desses modelos vocês têm em estoque?`,
      })),
    ]);
    long = await conversationOf(t.api, other);
    page = await signedInPage(browser, base, t.user, t.slug);
    // 502: the service's answer for the media WhatsApp no longer has.
    errors = watchConsole(page, [502]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
  });

  test('an image the contact sent shows in the thread: drawn from its bytes, 240 px at most, named in its alt, its caption below, "Baixar" kept', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    // The list says the last message's kind in words: the service's preview of a picture without text is "[image]".
    const preview = page.locator(`[data-conversation-id="${conv.id}"] .conv-preview`);
    await preview.waitFor();
    expect(await preview.textContent()).toBe('Imagem');
    const img = await drawn(page, ids.photo);
    // The alt names the picture; the caption is the text below it, not said twice.
    expect(await img.getAttribute('alt')).toBe('Imagem recebida');
    expect(
      await bubble(page, ids.photo).locator('button.msg-picture-open').getAttribute('aria-haspopup'),
    ).toBe('dialog');
    expect(await img.getAttribute('loading')).toBe('lazy');
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    const size = await img.evaluate((i: HTMLImageElement) => ({
      natural: [i.naturalWidth, i.naturalHeight],
      shown: [i.getBoundingClientRect().width, i.getBoundingClientRect().height],
    }));
    expect(size.natural).toEqual([480, 300]);
    // Fitted to 240 px, its aspect ratio kept (not stretched).
    expect(size.shown[0]).toBe(240);
    expect(Math.abs(size.shown[1] - 150)).toBeLessThanOrEqual(1);
    // The caption below the picture, the file's name and "Baixar" kept.
    const photo = bubble(page, ids.photo);
    await photo.locator('p', { hasText: caption }).waitFor();
    const below = await photo.evaluate((li) => {
      const pic = li.querySelector('button img')!.getBoundingClientRect();
      const text = [...li.querySelectorAll('p')].find(
        (p) => p.textContent === 'Fachada da loja na Rua Augusta',
      )!;
      return text.getBoundingClientRect().top >= pic.bottom;
    });
    expect(below).toBe(true);
    await photo.getByRole('button', { name: 'Baixar Imagem' }).waitFor();
    expect(await photo.getByText('Carregando imagem').count()).toBe(0);

    // The sticker (WebP) the same way; the picture a member sent, named by who sent it.
    const sticker = await drawn(page, ids.sticker);
    expect(await sticker.getAttribute('alt')).toBe('Imagem recebida');
    // Smaller than 240 px: its own size, never enlarged.
    expect(
      await sticker.evaluate((i: HTMLImageElement) => [i.naturalWidth, i.getBoundingClientRect().width]),
    ).toEqual([160, 160]);
    const sent = await drawn(page, ids.sent);
    expect(await sent.getAttribute('alt')).toBe(`Imagem enviada por ${t.user.username}`);
    await bubble(page, ids.sent).getByRole('button', { name: 'Baixar vitrine-nova.png' }).waitFor();
    // The thread opened at its newest message stays there as the pictures take the place of their boxes.
    await expect
      .poll(() => thread(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight))
      .toBeLessThan(8);
  });

  test('a click opens the picture larger in a dialog; Escape closes it and the focus returns to the thumbnail', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await drawn(page, ids.photo);
    const open = bubble(page, ids.photo).getByRole('button', { name: 'Imagem recebida (ampliar)' });
    await open.click();
    const dialog = page.getByRole('dialog', { name: 'Imagem recebida' });
    await dialog.waitFor();
    const large = dialog.getByRole('img', { name: 'Imagem recebida' });
    await expect.poll(() => large.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(480);
    // Larger than the thumbnail: its own 480 px, never enlarged past them.
    expect(await large.evaluate((i) => i.getBoundingClientRect().width)).toBe(480);
    await dialog.getByText(caption).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The dialog loses its name as its content goes, a moment before it closes and gives the focus back.
    await expect.poll(() => open.evaluate((b) => b === document.activeElement)).toBe(true);
  });

  test('a media WhatsApp no longer has falls back to its name and "Baixar", with the reason', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    // The oldest message: at the top of the thread, fetched once the thread is scrolled there.
    await thread(page).getByText('Bom dia! Olha como ficou a loja nova.').waitFor();
    await thread(page).evaluate((el) => {
      el.scrollTop = 0;
    });
    const gone = bubble(page, ids.expired);
    await gone
      .getByTestId('picture-failed')
      .getByText('Não foi possível mostrar a imagem: o WhatsApp não guarda mais este arquivo')
      .waitFor();
    expect(await gone.locator('img').count()).toBe(0);
    expect(await gone.getByRole('img', { name: 'Carregando imagem' }).count()).toBe(0);
    await gone.getByTestId('message-file').getByText('Imagem', { exact: true }).waitFor();
    await gone.getByRole('button', { name: 'Baixar Imagem' }).waitFor();
  });

  test('while the bytes come, a box of a picture\'s size says "Carregando imagem"', async () => {
    const p = await signedInPage(browser, base, t.user, t.slug);
    const consoleErrors = watchConsole(p, [502]);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await p.route(`**/api/conversations/${conv.id}/messages/${ids.photo}/media`, async (route) => {
      await held;
      await route.fallback();
    });
    await p.goto(`${base}/app/inbox/${conv.id}`);
    const wait = bubble(p, ids.photo).getByRole('img', { name: 'Carregando imagem' });
    await wait.waitFor();
    const box = (await wait.boundingBox())!;
    expect([box.width, box.height]).toEqual([240, 180]);
    release();
    await drawn(p, ids.photo);
    expect(await wait.count()).toBe(0);
    expect(consoleErrors).toEqual([]);
    await p.context().close();
  });

  test('a long thread fetches only the pictures near what it shows, each once, and not again when it comes back', async () => {
    const before = galleryRequests();
    await page.goto(`${base}/app/inbox/${long.id}`);
    await thread(page).getByText('Mensagem 18: qual desses modelos vocês têm em estoque?').waitFor();
    // The thread opens at its newest messages: the twelve pictures are far above, none is fetched.
    await page.waitForTimeout(1500);
    expect(fetched()).toBe(0);
    expect(await thread(page).getByRole('img', { name: 'Carregando imagem' }).count()).toBe(12);
    // At the top: the first pictures, not the twelve.
    await thread(page).evaluate((el) => {
      el.scrollTop = 0;
    });
    await picture(page, 'Modelo 1').waitFor();
    await page.waitForTimeout(1000);
    const first = fetched();
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(6);
    // Scrolled through: every picture, each fetched once (its lookup and its bytes: two requests to the peer).
    for (let i = 1; i <= 12; i++) {
      await thread(page)
        .locator('li')
        .filter({ has: page.getByText(`Modelo ${i}`, { exact: true }) })
        .scrollIntoViewIfNeeded();
      await picture(page, `Modelo ${i}`).waitFor();
    }
    expect(fetched()).toBe(12);
    expect(galleryRequests() - before).toBe(24);
    // Another conversation and back (the app's own links, no reload): the pictures come from the cache, nothing is
    // asked again.
    await page.locator(`a[data-conversation-id="${conv.id}"]`).click();
    await drawn(page, ids.photo);
    await page.locator(`a[data-conversation-id="${long.id}"]`).click();
    await thread(page).getByText('Mensagem 18: qual desses modelos vocês têm em estoque?').waitFor();
    await thread(page).evaluate((el) => {
      el.scrollTop = 0;
    });
    await picture(page, 'Modelo 1').waitFor();
    await page.waitForTimeout(500);
    expect(galleryRequests() - before).toBe(24);
  });

  test('the thread with pictures and the dialog: pt-BR only, accessible, within a 390 px phone', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await signedInPage(browser, base, t.user, t.slug, { phone });
      const consoleErrors = watchConsole(p, [502]);
      const where = phone ? 'phone' : 'desktop';
      await p.goto(`${base}/app/inbox/${conv.id}`);
      for (const id of [ids.photo, ids.sticker, ids.sent]) await drawn(p, id);
      await bubble(p, ids.expired).scrollIntoViewIfNeeded();
      await bubble(p, ids.expired).getByTestId('picture-failed').waitFor();
      if (phone) {
        // The thumbnail is as wide as the bubble lets it be, its aspect ratio kept.
        const fit = await bubble(p, ids.photo).evaluate((li) => {
          const img = li.querySelector('button img')!.getBoundingClientRect();
          const inner = li.clientWidth - Number.parseFloat(getComputedStyle(li).paddingLeft) * 2;
          return { width: img.width, height: img.height, inner };
        });
        expect(fit.width).toBeLessThanOrEqual(240);
        expect(fit.width).toBeGreaterThanOrEqual(fit.inner - 1);
        expect(Math.abs(fit.height - (fit.width * 300) / 480)).toBeLessThanOrEqual(1);
      }
      const found = await auditPage(p, { english, allowed: [t.user.username, t.slug], phone });
      if (found.length) problems[`thread-${where}`] = found;
      if (!phone) {
        // The captioned photo at the top of the thread, the sticker under it.
        await bubble(p, ids.photo).evaluate((li) => {
          const list = li.parentElement!;
          list.scrollTop += li.getBoundingClientRect().top - list.getBoundingClientRect().top - 4;
          window.scrollTo(0, 0);
        });
        await shot(p, 'web-172-inbox-image');
      } else await shot(p, 'web-172-inbox-image-phone');
      await bubble(p, ids.photo).getByRole('button', { name: 'Imagem recebida (ampliar)' }).click();
      await p.getByRole('dialog', { name: 'Imagem recebida' }).waitFor();
      const inDialog = await auditPage(p, { english, allowed: [t.user.username, t.slug], phone });
      await shot(p, `web-172-inbox-image-dialog-${where}`);
      if (inDialog.length) problems[`dialog-${where}`] = inDialog;
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
