import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.ts';

/** The guides (docs/guides/*.md) and their code blocks, run by test/e2e/guides.test.ts. */
export const GUIDES = path.join(ROOT, 'docs/guides');

export function extractShellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

export function extractTypeScriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The guides' TypeScript blocks, in file order, as one module. */
export function guidesTypeScript(): string {
  return fs
    .readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .flatMap((f) => extractTypeScriptBlocks(fs.readFileSync(path.join(GUIDES, f), 'utf8')).map((b, i) => `// ${f} block ${i + 1}\n${b}`))
    .join('\n');
}
