/** The little of fontkit (pdfkit's own font engine) this project uses: parsed fonts handed to pdfkit. */
declare module 'fontkit' {
  export interface Font {
    readonly familyName: string;
    layout(text: string): unknown;
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  export function create(buffer: Uint8Array): Font;
}
