import type { Schemas } from '../../api';
import { wordsOf } from '../../lib/area-words';
import * as catalogue from '../../words/privacy';

/** The words of a contact's consents and LGPD rights (web/src/words/privacy.ts). */
export const pw = wordsOf(catalogue);
export type PrivacyKey = keyof typeof catalogue.ptBR;

export type ConsentState = Schemas['ConsentState'];
export type ConsentEntry = Schemas['ConsentEntry'];
export type PrivacyRequest = Schemas['PrivacyRequest'];

/** A service code as this area's word (`ch_whatsapp`, `src_form`, `rq_done`…). */
export const codeWord = (prefix: string, value: string) => pw(`${prefix}_${value}` as PrivacyKey);

/** A channel and purpose in words: "WhatsApp · Marketing". */
export const consentWhat = (c: { channel: string; purpose: string }) =>
  `${codeWord('ch', c.channel)} · ${codeWord('pu', c.purpose)}`;

/** The name the service leaves on an erased contact (src/modules/privacy/erase-repo.ts, ERASED_NAME). */
const ERASED_NAME = 'Erased contact';

/** Whether the contact's personal data was erased: the service leaves only its marker name. */
export const isErased = (c: { name: string }) => c.name === ERASED_NAME;

/** A contact's name to show: an erased contact's marker in the chosen language. */
export const shownName = (name: string) => (name === ERASED_NAME ? pw('erasedName') : name);
