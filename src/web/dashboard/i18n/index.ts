import { en } from './en.ts';
import { es, type Messages } from './es.ts';

export type Lang = 'es' | 'en';
export type { Messages };

export const LANGS: readonly Lang[] = ['es', 'en'];
export const DEFAULT_LANG: Lang = 'es';
export const LANG_COOKIE = 'dte_lang';

const CATALOGUES: Record<Lang, Messages> = { es, en };

export const messagesFor = (lang: Lang): Messages => CATALOGUES[lang];
export const isLang = (v: unknown): v is Lang => v === 'es' || v === 'en';

/**
 * Spanish first: `?lang=` wins (and is remembered in a cookie), then the cookie, then Spanish.
 * The browser's Accept-Language is deliberately not used: the audience is Chilean.
 */
export function pickLang(query: unknown, cookie: unknown): { lang: Lang; remember: boolean } {
  if (isLang(query)) return { lang: query, remember: query !== cookie };
  if (isLang(cookie)) return { lang: cookie, remember: false };
  return { lang: DEFAULT_LANG, remember: false };
}
