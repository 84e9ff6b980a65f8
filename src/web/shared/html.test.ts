import { describe, expect, it } from 'vitest';
import { escapeHtml, html, trusted } from './html.ts';
import { field } from './forms.ts';
import { layout } from './layout.ts';

describe('html escaping', () => {
  it('escapes every interpolated value unless it is html', () => {
    const evil = `"><script>alert('x')</script>&\``;
    const out = html`<p title="${evil}">${evil}</p>${html`<b>${evil}</b>`}${[evil, html`<i></i>`]}${null}${undefined}${false}${0}`.value;
    expect(out).not.toContain('<script>');
    expect(out).toContain('&lt;script&gt;');
    expect(out).toContain('&quot;&gt;');
    expect(out).toContain('&#39;x&#39;');
    expect(out).toContain('<b>&quot;');
    expect(out).toContain('<i></i>');
    expect(out.endsWith('0')).toBe(true);
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
    expect(trusted('<br>').value).toBe('<br>');
  });

  it('renders accessible fields: label, hint and error tied to the input', () => {
    const out = field({
      name: 'apiKey',
      label: 'Clave',
      hint: 'Ayuda',
      error: 'Mal <x>',
      type: 'password',
      value: 'never shown',
      autofocus: true,
    }).value;
    expect(out).toContain('<label for="f-apiKey">Clave</label>');
    expect(out).toContain('aria-describedby="f-apiKey-hint f-apiKey-error"');
    expect(out).toContain('aria-invalid="true"');
    expect(out).toContain('autofocus');
    expect(out).toContain('Mal &lt;x&gt;');
    expect(out).not.toContain('never shown');
  });

  it('lays out a page with lang, viewport, one same-origin stylesheet and no script', () => {
    const page = layout({ title: 'T <1>', lang: 'es', main: html`<h1>Hola</h1>` });
    expect(page).toMatch(/^<!doctype html>\n<html lang="es">/);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<title>T &lt;1&gt;</title>');
    expect(page).toContain('<link rel="stylesheet" href="/assets/site.css">');
    expect(page).not.toMatch(/<script|style=/i);
  });
});
