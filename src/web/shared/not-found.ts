import { html } from './html.ts';
import { layout } from './layout.ts';

/**
 * The page a browser gets for an unknown address outside /api (a mistyped dashboard URL, an old
 * bookmark). API clients keep the JSON envelope: this page is only for requests that ask for HTML.
 */
export function wantsHtmlPage(method: string, path: string, accept: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path === '/api' || path.startsWith('/api/')) return false;
  return (accept ?? '').includes('text/html');
}

export function notFoundPage(path: string, requestId: string): string {
  return layout({
    title: 'Page not found',
    lang: 'en',
    skipLinkText: 'Skip to content',
    main: html`<h1>Page not found</h1>
<p>There is no page at <code>${path}</code>.</p>
<p><a href="/">Go to the dashboard</a> or read the <a href="/docs">API reference</a>.</p>
<p class="muted">Request id: <code>${requestId}</code></p>`,
  });
}
