import { describe, expect, it } from 'vitest';
import { breakLines, longestLine, MAX_XML_LINE } from './xml-lines.ts';

describe('breakLines', () => {
  it('puts each element on a line of its own, text and empty elements untouched', () => {
    const flat = '<A ID="x"><B>uno &amp; dos</B><C><D>1</D></C><E Algorithm="y"></E></A>';
    expect(breakLines(flat)).toBe('<A ID="x">\n<B>uno &amp; dos</B>\n<C>\n<D>1</D>\n</C>\n<E Algorithm="y"></E>\n</A>');
  });

  it('is idempotent and leaves text without tags alone', () => {
    const once = breakLines('<A><B>1</B><B>2</B></A>');
    expect(breakLines(once)).toBe(once);
    expect(breakLines('texto')).toBe('texto');
    expect(breakLines('<A></A>')).toBe('<A></A>');
  });

  it('never adds a character inside a text value (only whitespace between tags)', () => {
    const flat = '<A><B>a &gt; b</B><C>MIIB/x+==</C></A>';
    expect(breakLines(flat).replace(/>\n</g, '><')).toBe(flat);
  });
});

describe('longestLine', () => {
  it('counts bytes per LF-separated line, the last line included', () => {
    expect(longestLine('ab\ncde\nf')).toBe(3);
    expect(longestLine(Buffer.from('x'.repeat(MAX_XML_LINE + 1)))).toBe(4091);
    expect(longestLine('')).toBe(0);
  });
});
