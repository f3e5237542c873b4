/// <reference types="vite/client" />
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { wordsEn, wordsPtBR } from '../../web/src/lib/catalog-words.js';

/**
 * Checks the end-to-end tests run on every page: the visible text of a pt-BR page (no string of the English
 * catalogue, no raw code), the phone layout (nothing wider than the viewport) and accessibility.
 *
 * `a11y` runs axe-core (its serious and critical violations) and, beside it, checks of its own with Chromium's
 * accessibility tree (CDP): colour contrast (WCAG 4.5:1, 3:1 for large text), controls and links without an
 * accessible name, controls nested in a control, references to missing ids, duplicate ids, focusable content
 * under aria-hidden, images without a text.
 */

/** The areas' catalogues: every file of web/src/words (pure data). */
const areaCatalogues = import.meta.glob<{ ptBR: Record<string, string>; en: Record<string, string> }>(
  '../../web/src/words/*.ts',
  { eager: true },
);

/** Every catalogue's strings in both languages, keyed alike (web/src/i18n.ts is read as text: it touches the DOM). */
function catalogues(): { pt: Record<string, string>; en: Record<string, string> } {
  const source = readFileSync(join(import.meta.dirname, '../../web/src/i18n.ts'), 'utf8');
  const pick = (start: string) => {
    const from = source.indexOf(start);
    const body = source.slice(source.indexOf('{', from), source.indexOf('\n};', from) + 2);
    return new Function(`return (${body});`)() as Record<string, unknown>;
  };
  const strings = (d: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(d).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  // Each area's own catalogue (web/src/words/<area>.ts, read through lib/area-words.ts).
  const areas = Object.values(areaCatalogues);
  return {
    pt: {
      ...strings(pick('const ptBR')),
      ...(wordsPtBR as Record<string, string>),
      ...Object.fromEntries(
        areas.flatMap((c, i) => Object.entries(c.ptBR).map(([k, v]) => [`${i}.${k}`, v])),
      ),
    },
    en: {
      ...strings(pick('const en: Dict')),
      ...(wordsEn as Record<string, string>),
      ...Object.fromEntries(areas.flatMap((c, i) => Object.entries(c.en).map(([k, v]) => [`${i}.${k}`, v]))),
    },
  };
}

/** The strings of one language's catalogues that the other language never uses (4+ characters, no placeholders). */
function onlyIn(own: Record<string, string>, other: Record<string, string>): string[] {
  const same = new Set(Object.values(other).map((v) => v.toLowerCase()));
  return [
    ...new Set(
      Object.values(own)
        .map((v) => v.replace(/\{\w+\}/g, '').trim())
        // Words both languages share (Agenda, Status, E-mail, Token…) and fragments too short to mean anything.
        .filter((v) => v.length >= 4 && !same.has(v.toLowerCase())),
    ),
  ];
}

/** The English strings of every catalogue that pt-BR never uses. */
export function englishCatalogue(): string[] {
  const { pt, en } = catalogues();
  return onlyIn(en, pt);
}

/** The pt-BR strings of every catalogue that English never uses (an English page must show none). */
export function portugueseCatalogue(): string[] {
  const { pt, en } = catalogues();
  return onlyIn(pt, en);
}

/** Codes of the service a person must never see as they are. */
export const RAW_CODES = [
  'owner',
  'admin',
  'member',
  'viewer',
  'business',
  'pending',
  'in-progress',
  'completed',
  'cancelled',
  'medium',
  'urgent',
  'contains',
  'startsWith',
  'endsWith',
  'notEmpty',
  'AND',
  'OR',
  'eq',
  'city',
  'contact_type',
];

/** esbuild (vitest) may wrap named functions in `__name(…)`: the page gets a no-op one before a check runs. */
const prepare = (page: Page) => page.evaluate('globalThis.__name ??= (f) => f');

/** Every text a person sees or hears on the page: text, placeholders, option labels, accessible labels. */
export async function pageTexts(page: Page): Promise<string[]> {
  await prepare(page);
  return page.evaluate(() => {
    const out: string[] = [];
    const visible = (el: Element) => {
      const s = getComputedStyle(el);
      return s.display !== 'none' && s.visibility !== 'hidden' && (el as HTMLElement).offsetParent !== null;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = n.textContent?.trim();
      // <code>: identifiers a person types as they are (a token's scopes `contacts:read`); translate="no": names the
      // same in every language (the IANA time zones, America/Mexico_City).
      if (!text || !el || el.closest('script,style,code,[translate=no]')) continue;
      if (el.closest('select') || visible(el) || el.closest('.sr-only')) out.push(text);
    }
    for (const el of document.querySelectorAll('[placeholder],[aria-label],[title]'))
      for (const a of ['placeholder', 'aria-label', 'title']) {
        const v = el.getAttribute(a);
        if (v) out.push(v);
      }
    return out;
  });
}

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The strings of another language's catalogue among a page's texts (user data passed in `allowed` is skipped). */
export function foreign(texts: string[], catalogue: string[], allowed: string[] = []): string[] {
  const found = new Set<string>();
  for (const raw of texts) {
    if (allowed.some((a) => raw.includes(a))) continue;
    const text = raw.replace(/\S+@\S+|https?:\/\/\S+/g, '');
    for (const s of catalogue)
      if (new RegExp(`(^|[^\\p{L}])${quote(s)}($|[^\\p{L}])`, 'u').test(text))
        found.add(`"${s}" in "${raw}"`);
  }
  return [...found];
}

/** The English strings and raw codes among a pt-BR page's texts (user data passed in `allowed` is skipped). */
export function untranslated(texts: string[], english: string[], allowed: string[] = []): string[] {
  const found = new Set<string>(foreign(texts, english, allowed));
  const emails = /\S+@\S+|https?:\/\/\S+/g;
  for (const raw of texts) {
    if (allowed.some((a) => raw.includes(a))) continue;
    const text = raw.replace(emails, '');
    for (const c of RAW_CODES)
      if (new RegExp(`(^|[\\s·(:,])${quote(c)}($|[\\s·),:])`).test(text)) found.add(`code ${c} in "${raw}"`);
    // snake_case and camelCase identifiers (event types, field slugs, operators).
    for (const m of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b|\b[a-z]+[A-Z][a-z]+\b/g))
      found.add(`code ${m[0]} in "${raw}"`);
  }
  return [...found];
}

/** Elements wider than the viewport or past its right edge, outside any horizontally scrolling box. */
export async function tooWide(page: Page): Promise<string[]> {
  await prepare(page);
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > vw + 1)
      out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
    const scrolls = (el: Element | null): boolean => {
      for (let p = el?.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (!r.width || getComputedStyle(el).position === 'fixed' || el.closest('.sr-only')) continue;
      if ((r.width > vw + 1 || r.right > vw + 1) && !scrolls(el))
        out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.left)}–${Math.round(r.right)}`);
    }
    return out.slice(0, 10);
  });
}

const NAMED_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'combobox',
  'checkbox',
  'radio',
  'spinbutton',
  'slider',
  'switch',
  'tab',
  'menuitem',
  'listbox',
  'dialog',
  'img',
]);

/** Accessibility violations of the page (see the top of this file); an empty list when it passes. */
export async function a11y(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: {
      ignored: boolean;
      role?: { value: string };
      name?: { value: string };
      backendDOMNodeId?: number;
    }[];
  };
  await cdp.detach();
  const out: string[] = [];
  for (const n of nodes) {
    const role = n.role?.value ?? '';
    if (!n.ignored && NAMED_ROLES.has(role) && !n.name?.value?.trim())
      out.push(`no accessible name: ${role}`);
  }
  await prepare(page);
  out.push(...(await page.evaluate(inPageChecks)));
  out.push(...(await axe(page)));
  return out;
}

// Evaluated through the DevTools protocol: the app's CSP (script-src 'self') refuses an injected <script>.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations (WCAG 2 A and AA rules, best practices), one line per rule. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(`${AXE};0`);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string; nodes: string[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `axe ${v.impact} ${v.id}: ${v.nodes.join(' | ')}`);
}

/** Runs in the page: contrast, nested controls, references, ids, aria-hidden, images. */
function inPageChecks(): string[] {
  const out: string[] = [];
  const rgba = (c: string) => {
    const m = c.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
    return { r: m[0], g: m[1], b: m[2], a: m[3] ?? 1 };
  };
  const lum = ({ r, g, b }: { r: number; g: number; b: number }) => {
    const f = (v: number) => {
      const x = v / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el: Element | null) => {
    const layers: { r: number; g: number; b: number; a: number }[] = [];
    for (let p = el; p; p = p.parentElement) {
      const c = rgba(getComputedStyle(p).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let acc = { r: 255, g: 255, b: 255 };
    for (const c of layers.reverse())
      acc = {
        r: c.r * c.a + acc.r * (1 - c.a),
        g: c.g * c.a + acc.g * (1 - c.a),
        b: c.b * c.a + acc.b * (1 - c.a),
      };
    return acc;
  };
  const visible = (el: Element) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const seen = new Set<Element>();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent?.trim() || !visible(el) || el.closest('.sr-only,option'))
      continue;
    seen.add(el);
    if ((el as HTMLButtonElement).disabled || el.closest('[disabled],[aria-disabled=true]')) continue;
    const s = getComputedStyle(el);
    if (Number(s.opacity) < 1) continue;
    const fg = rgba(s.color);
    const bg = background(el);
    const fgMixed = {
      r: fg.r * fg.a + bg.r * (1 - fg.a),
      g: fg.g * fg.a + bg.g * (1 - fg.a),
      b: fg.b * fg.a + bg.b * (1 - fg.a),
    };
    const [l1, l2] = [lum(fgMixed), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = Number.parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5))
      out.push(
        `contrast ${ratio.toFixed(2)} "${n.textContent.trim().slice(0, 40)}" (${s.color} on rgb(${bg.r},${bg.g},${bg.b}))`,
      );
  }
  const controls = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link]';
  for (const el of document.querySelectorAll(controls)) {
    const inner = el.querySelector(`${controls},[tabindex]:not([tabindex="-1"])`);
    if (inner && visible(inner))
      out.push(`nested control in ${el.tagName.toLowerCase()}: ${inner.tagName.toLowerCase()}`);
  }
  for (const el of document.querySelectorAll(
    '[aria-labelledby],[aria-describedby],[aria-controls],label[for]',
  ))
    for (const a of ['aria-labelledby', 'aria-describedby', 'aria-controls', 'for'])
      for (const id of (el.getAttribute(a) ?? '').split(/\s+/).filter(Boolean))
        if (!document.getElementById(id)) out.push(`${a}="${id}" names no element`);
  const ids = new Map<string, number>();
  for (const el of document.querySelectorAll('[id]')) ids.set(el.id, (ids.get(el.id) ?? 0) + 1);
  for (const [id, n] of ids) if (n > 1) out.push(`duplicate id ${id}`);
  for (const el of document.querySelectorAll('[aria-hidden=true]'))
    if (el.querySelector('a[href],button,input,select,textarea,[tabindex]:not([tabindex="-1"])'))
      out.push('focusable content under aria-hidden');
  for (const img of document.querySelectorAll('img:not([alt])'))
    out.push(`img without alt ${img.getAttribute('src')}`);
  if (!document.documentElement.lang) out.push('html without lang');
  return [...new Set(out)];
}

/**
 * Everything the audits find on the page as it is: English words in a pt-BR page (`allowed`: user data shown as
 * typed), accessibility violations and, on a phone, what is wider than the screen. An empty list when it passes.
 */
export async function auditPage(
  page: Page,
  opts: { english: string[]; allowed?: string[]; phone?: boolean },
): Promise<string[]> {
  return [
    ...untranslated(await pageTexts(page), opts.english, opts.allowed ?? []),
    ...(await a11y(page)),
    ...(opts.phone ? await tooWide(page) : []),
  ];
}
