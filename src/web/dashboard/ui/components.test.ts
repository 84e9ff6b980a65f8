import { describe, expect, it } from 'vitest';
import { errors } from '../../../errors.ts';
import { messagesFor } from '../i18n/index.ts';
import { errorText, formError, labelled, problemFor, rut } from './components.ts';

const es = messagesFor('es');
const en = messagesFor('en');

describe('form errors in the page language', () => {
  it('gives a known code its text, a form rule its text, and never English on a Spanish page', () => {
    expect(errorText(errors.invalid('invalid_rut', 'rutEmpresa has a wrong check digit'), es)).toContain('El RUT no es válido');
    const tooLong = errors.invalid('invalid_field', 'name must have at most 100 characters.', { details: { rule: 'too_long', max: 100 } });
    expect(errorText(tooLong, es)).toBe('Puede tener como máximo 100 caracteres.');
    expect(errorText(tooLong, en)).toBe('Use at most 100 characters.');
    const number = errors.invalid('invalid_field', 'x', { details: { rule: 'whole_number', min: 0, max: 999999 } });
    expect(errorText(number, es)).toBe('Escribe un número entero entre 0 y 999999, sin puntos.');
    // A code with no text of its own: Spanish pages say something generic in Spanish.
    const unknown = errors.invalid('some_new_code', 'The thing must be something else.');
    expect(errorText(unknown, es)).toBe('Este valor no es válido: revísalo.');
    expect(errorText(unknown, en)).toBe('The thing must be something else.');
    expect(errorText({ code: 'body_too_large', message: 'too large' }, es)).toBe('El formulario o el archivo es demasiado grande.');
  });

  it('lists every problem in the order of the fields, each with its label, linking to its field', () => {
    const problems = [{ message: 'b', param: 'giro' }, { message: 'a', param: 'rutEmpresa' }, { message: 'c' }];
    const ordered = labelled(problems, [
      ['rutEmpresa', 'RUT'],
      ['giro', 'Giro'],
    ]);
    expect(ordered.map((p) => [p.label, p.message])).toEqual([
      ['RUT', 'a'],
      ['Giro', 'b'],
      [undefined, 'c'],
    ]);
    const summary = String(formError(ordered.slice(0, 2), es));
    expect(summary).toContain('<a href="#f-rutEmpresa">RUT: a</a>');
    expect(summary.indexOf('RUT: a')).toBeLessThan(summary.indexOf('Giro: b'));
    expect(String(formError(ordered, es))).toContain('<p>c</p>'); // one without a field: no links
    expect(problemFor(problems, 'giro')).toBe('b');
    expect(problemFor(problems, 'email')).toBeUndefined();
    expect(formError([], es)).toBe('');
  });

  it('marks a RUT to stay on one line, escaped', () => {
    expect(String(rut('76.192.083-9'))).toBe('<span class="rut">76.192.083-9</span>');
    expect(String(rut('<b>'))).toBe('<span class="rut">&lt;b&gt;</span>');
    expect(rut(null)).toBe('—');
  });
});
