/**
 * A set text the parser cannot read: names the line (1-based) and what it expected there, so the
 * user can compare with the SII's file. The HTTP layer turns it into a 422
 * `certification_set_unreadable` (docs/certification.md).
 */
export type SetErrorReason =
  | 'empty'
  | 'not_a_test_set'
  | 'unknown_section'
  | 'duplicate_section'
  | 'bad_case_heading'
  | 'case_without_document'
  | 'unknown_document_type'
  | 'bad_number'
  | 'bad_item_row'
  | 'unknown_code'
  | 'missing_case'
  | 'bad_reference';

export class SetParseError extends Error {
  readonly line: number;
  readonly reason: SetErrorReason;
  readonly expected: string;

  constructor(reason: SetErrorReason, line: number, expected: string, found?: string) {
    super(`Line ${line}: expected ${expected}${found === undefined ? '' : `, found '${found.slice(0, 80)}'`}.`);
    this.name = 'SetParseError';
    this.reason = reason;
    this.line = line;
    this.expected = expected;
  }
}

export const isSetParseError = (e: unknown): e is SetParseError => e instanceof SetParseError;
