import { getLang } from '../i18n';
import * as catalogue from '../words/message-errors';
import { wordsOf } from './area-words';

const mw = wordsOf(catalogue);

/**
 * A failed message's `error` (the service's English text: the provider's title and code, or the inbox's own reason)
 * in the chosen language: in English the service's text as it is, else its kind and the provider's code.
 */
export function messageError(error: string): string {
  if (getLang() === 'en') return error;
  if (/^interrupted while sending/i.test(error)) return mw('interrupted');
  if (/24-hour window/i.test(error)) return mw('windowClosed');
  const code = /\(#?(\d{3,7})\)/.exec(error)?.[1];
  return code ? mw('refusedCode', { code }) : mw('refused');
}
