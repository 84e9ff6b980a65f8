/**
 * Reads a secret for a CLI command without it ever being an argument (argv is visible to every
 * user of the machine in `ps` and lands in shell history): from a pipe, the first line of stdin;
 * at a terminal, a prompt on stderr with echo off, asked twice.
 */
export async function readSecretFromStdin(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  const text = Buffer.concat(chunks).toString('utf8');
  return text.split(/\r?\n/)[0] ?? '';
}

function promptHidden(question: string, stdin: NodeJS.ReadStream, out: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    out.write(question);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      out.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (s: string) => {
      for (const ch of s) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new Error('Cancelled.'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readNewPassword(stdin: NodeJS.ReadStream = process.stdin, out: NodeJS.WriteStream = process.stderr): Promise<string> {
  if (!stdin.isTTY) return readSecretFromStdin(stdin);
  const first = await promptHidden('New password: ', stdin, out);
  const second = await promptHidden('Repeat it: ', stdin, out);
  if (first !== second) throw Object.assign(new Error('The two passwords are different.'), { code: 'password_mismatch' });
  return first;
}
