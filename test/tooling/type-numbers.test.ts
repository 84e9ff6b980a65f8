import { describe, expect, it } from 'vitest';
import { coveredFiles, scanSource, stripComments, typeNumberFindings } from '../../scripts/lint/type-numbers.ts';

const rules = (code: string) => typeNumberFindings('src/x.ts', code).map((f) => f.rule);

describe('document type numbers live in the catalogue (src/dte/catalogue.ts)', () => {
  it('no code under src decides by a type number outside the catalogue', () => {
    expect(scanSource()).toEqual([]);
  });

  it('covers src, leaves out the catalogue, tests and the emulator', () => {
    const files = coveredFiles();
    expect(files).toContain('src/dte/normalize.ts');
    expect(files).toContain('src/web/dashboard/pages/credit-note.ts');
    expect(files).not.toContain('src/dte/catalogue.ts');
    expect(files.some((f) => f.startsWith('src/provider/emulator/'))).toBe(false);
    expect(files.some((f) => f.endsWith('.test.ts'))).toBe(false);
  });

  it('fails on a planted comparison, case label, list, keyed object or default', () => {
    expect(rules('if (tipoDte === 61) return;')).toEqual(['comparison']);
    expect(rules('const x = d.tipoDte !== 110 ? a : b;')).toEqual(['comparison']);
    expect(rules("if (row.tipo_dte == '33') go();")).toEqual(['comparison']);
    expect(rules('if (39 === input.tipoDte) go();')).toEqual(['comparison']);
    expect(rules('if (tipoDte >= 110) go();')).toEqual(['comparison']);
    expect(rules('switch (t) {\n  case 41:\n    return 1;\n}')).toEqual(['case']);
    expect(rules('const BOLETAS = [39, 41];')).toEqual(['list']);
    expect(rules("const names = {\n  33: 'Factura',\n  34: 'Exenta',\n};")).toEqual(['keys']);
    expect(rules("value: o.form.tipoDte ?? '33',")).toEqual(['default']);
  });

  it('does not flag numbers that are not type decisions', () => {
    expect(rules('const TOKEN_RE = /^act_[A-Za-z0-9_-]{43}$/;')).toEqual([]);
    expect(rules('if (s.length === 43) ok();')).toEqual([]);
    expect(rules('if (folio === 61) ok();')).toEqual([]);
    expect(rules("const r = '11.111.111-1'; const t = '+56 2 2345 6789';")).toEqual([]);
    expect(rules('export const UNSUPPORTED_TAX_CODES = [14, 16, 28, 35, 40, 49, 50, 51, 52, 53];')).toEqual([]);
    // Tax codes 33, 34, 39 beside codes that are no document type: a tax table, not a type table.
    expect(rules("const TAX = {\n  '30': 'legumbres',\n  '33': 'madera',\n  '34': 'trigo',\n};")).toEqual([]);
    expect(rules("const ENTITIES = { \"'\": '&#39;' };")).toEqual([]);
  });

  it('skips comments but not strings that look like them', () => {
    expect(rules('// if (tipoDte === 61) return;\n/* case 33: */ const a = 1;')).toEqual([]);
    expect(stripComments("const u = 'http://x'; // c")).toBe("const u = 'http://x'; ");
    expect(rules("const u = 'http://x'; if (tipoDte === 52) go();")).toEqual(['comparison']);
  });
});
