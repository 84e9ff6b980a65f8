import { html, type SafeHtml } from './html.ts';

/**
 * The page shell shared by the hosted pages: one stylesheet from the same origin (the CSP allows
 * nothing else), no script, a skip link, and a main landmark that takes focus targets.
 */
export interface LayoutOptions {
  title: string;
  /** BCP 47, `es` for the customer-facing pages. */
  lang?: string;
  /** Shown in the header, e.g. the service or company name. */
  brand?: string;
  main: SafeHtml;
  footer?: SafeHtml;
  skipLinkText?: string;
}

export const STYLESHEET_PATH = '/assets/site.css';
export const FAVICON_PATH = '/assets/favicon.svg';

export function layout(o: LayoutOptions): string {
  return `<!doctype html>\n${
    html`<html lang="${o.lang ?? 'es'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${o.title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
</head>
<body>
<a class="skip-link" href="#main">${o.skipLinkText ?? 'Saltar al contenido'}</a>
<header class="site-header"><p class="brand">${o.brand ?? ''}</p></header>
<main id="main" tabindex="-1">
${o.main}
</main>
${o.footer ? html`<footer class="site-footer">${o.footer}</footer>` : ''}
</body>
</html>`.value
  }\n`;
}
