/**
 * An answer of the emulated SimpleAPI exactly as it goes on the wire: status, content type and
 * body bytes. The core (emulator.ts) returns these; server.ts only sends them. JSON is compact, as
 * SimpleAPI's is (every recorded Content-Length equals the compact JSON's length [C]).
 */
export interface Reply {
  status: number;
  /** undefined: no Content-Type (the empty 401). */
  contentType: string | undefined;
  body: Buffer;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
/** [C "Folios / Get Folios", "Exito": headers]. */
export const CAF_TYPE = 'application/xml; charset=iso-8859-1';

export const jsonReply = (status: number, value: unknown): Reply => ({
  status,
  contentType: JSON_TYPE,
  body: Buffer.from(JSON.stringify(value), 'utf8'),
});
export const textReply = (status: number, text: string, headers?: Record<string, string>): Reply => ({
  status,
  contentType: TEXT_TYPE,
  body: Buffer.from(text, 'utf8'),
  ...(headers ? { headers } : {}),
});
export const emptyReply = (status: number): Reply => ({ status, contentType: undefined, body: Buffer.alloc(0) });
export const xmlReply = (bytes: Buffer): Reply => ({ status: 200, contentType: CAF_TYPE, body: bytes });

/** Thrown by the core to end a call early with this answer. */
export class Refusal extends Error {
  readonly reply: Reply;
  constructor(reply: Reply) {
    super(`emulator answers ${reply.status}`);
    this.name = 'Refusal';
    this.reply = reply;
  }
}

export function refuse(reply: Reply): never {
  throw new Refusal(reply);
}
