/**
 * Finds decisions by document type number outside the catalogue (src/dte/catalogue.ts; docs/design.md,
 * "one home for each fact"): code that compares a tipo-like value with a type code, a `case` label
 * of a type code, a list made only of type codes, an object keyed only by type codes, or a
 * default type code. Numbers that merely look like one (a length of 43, the tax code 33 in a
 * table that also holds 15 and 17, an example value) are not decisions and are not flagged.
 * Comments are skipped. The emulator (src/provider/emulator/) mirrors the SII on its own and is
 * left out, as are tests. Run: `node scripts/lint/type-numbers.ts` (exit 1 on findings).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_TIPOS_DTE } from '../../src/dte/catalogue.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

export interface TypeNumberFinding {
  file: string;
  line: number;
  rule: 'comparison' | 'case' | 'list' | 'keys' | 'default';
  text: string;
}

const CODES = SUPPORTED_TIPOS_DTE.map(String);
const CODE = `['"\`]?(?:${CODES.join('|')})['"\`]?(?![\\w.])`;
/** A value that holds a document type: tipoDte, tipo_dte, d.tipoDte, tipoDocRef, TpoDoc…, tipoSource. */
const TIPO = String.raw`[\w$.?!\]\[]*\b(?:tipo|tpo)[\w$]*(?:\(\))?`;
const OP = String.raw`(?:===|!==|==|!=|>=|<=|>|<)`;
const RULES: [TypeNumberFinding['rule'], RegExp][] = [
  ['comparison', new RegExp(String.raw`${TIPO}\s*${OP}\s*${CODE}`, 'i')],
  ['comparison', new RegExp(String.raw`(?<![\w.])${CODE}\s*${OP}\s*${TIPO}`, 'i')],
  ['case', new RegExp(String.raw`\bcase\s+${CODE}\s*:`)],
  ['list', new RegExp(String.raw`\[\s*${CODE}\s*(?:,\s*${CODE}\s*)+,?\s*\]`)],
  ['default', new RegExp(String.raw`${TIPO}\s*(?:\?\?|\|\|)\s*(?:String\()?${CODE}`, 'i')],
];
const KEY = /^\s*['"]?(\d+)['"]?\s*:/;

/** The text with comments blanked (line numbers kept); strings and templates are left alone. */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  let quote: string | null = null;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote) {
      out += c;
      if (c === '\\') {
        out += next ?? '';
        i += 2;
        continue;
      }
      if (c === quote) quote = null;
      i++;
    } else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
      i++;
    }
  }
  return out;
}

export function typeNumberFindings(file: string, source: string): TypeNumberFinding[] {
  const lines = stripComments(source).split('\n');
  const out: TypeNumberFinding[] = [];
  lines.forEach((text, i) => {
    for (const [rule, re] of RULES) if (re.test(text)) out.push({ file, line: i + 1, rule, text: text.trim() });
  });
  // An object keyed only by type codes (two or more consecutive keys, every one a type code).
  for (let i = 0; i < lines.length;) {
    if (!KEY.test(lines[i]!)) {
      i++;
      continue;
    }
    const start = i;
    const keys: string[] = [];
    while (i < lines.length && (KEY.test(lines[i]!) || /^\s*$/.test(lines[i]!))) {
      const m = KEY.exec(lines[i]!);
      if (m) keys.push(m[1]!);
      i++;
    }
    if (keys.length >= 2 && keys.every((k) => CODES.includes(k)))
      out.push({ file, line: start + 1, rule: 'keys', text: lines[start]!.trim() });
  }
  return out;
}

/** Files the rule covers: src/**\/*.ts except tests, the catalogue and the emulator. */
export function coveredFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      const rel = path.relative(root, p).split(path.sep).join('/');
      if (fs.statSync(p).isDirectory()) {
        if (rel !== 'src/provider/emulator') walk(p);
      } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && rel !== 'src/dte/catalogue.ts') out.push(rel);
    }
  };
  walk(path.join(root, 'src'));
  return out.sort();
}

export function scanSource(): TypeNumberFinding[] {
  return coveredFiles().flatMap((f) => typeNumberFindings(f, fs.readFileSync(path.join(root, f), 'utf8')));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const findings = scanSource();
  for (const f of findings) console.error(`${f.file}:${f.line} (${f.rule}) ${f.text}`);
  if (findings.length > 0) {
    console.error(`${findings.length} decision(s) by document type number outside src/dte/catalogue.ts: ask the catalogue.`);
    process.exit(1);
  }
  console.log('No document type numbers outside the catalogue.');
}
