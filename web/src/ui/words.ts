import { wordsOf } from '../lib/area-words';
import * as catalogue from '../words/ui';

/** The design system's words in the chosen language. */
export const uw = wordsOf(catalogue);
