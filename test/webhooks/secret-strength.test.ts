// Which values a webhook secret may be (issue 19): what `openssl rand` makes passes; the values
// every shell has, that a workflow on disk could name in `secret_env` (the terminal, the bus
// address, paths), do not — judged by the value, not by a list of names.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { estimateSecretBits, MIN_SECRET_BITS, secretWeakness } from '../../src/webhooks/secret-strength.js';

/** `count` byte strings of `size` bytes, the same every run (SHA-256 in counter mode). */
function bytes(count: number, size: number, seed: string): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    let out = Buffer.alloc(0);
    for (let block = 0; out.length < size; block++) out = Buffer.concat([out, createHash('sha256').update(`${seed}/${i}/${block}`).digest()]);
    return out.subarray(0, size);
  });
}

const uuidOf = (b: Buffer) => {
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

describe('a webhook secret', () => {
  it.each([
    ['openssl rand -hex 16', bytes(2000, 16, 'hex16').map((b) => b.toString('hex'))],
    ['openssl rand -hex 16, upper case', bytes(500, 16, 'hex16u').map((b) => b.toString('hex').toUpperCase())],
    ['openssl rand -hex 32', bytes(500, 32, 'hex32').map((b) => b.toString('hex'))],
    ['openssl rand -base64 24', bytes(2000, 24, 'b64').map((b) => b.toString('base64'))],
    ['base64url of 32 bytes', bytes(500, 32, 'b64url').map((b) => b.toString('base64url'))],
    ['a UUID', bytes(1000, 16, 'uuid').map(uuidOf)],
    ['a prefixed provider secret', bytes(200, 24, 'whsec').map((b) => `whsec_${b.toString('base64')}`)],
  ])('made by %s passes', (_how, values) => {
    for (const value of values) expect(secretWeakness(value), value).toBeUndefined();
  });

  it.each([
    ['COLORTERM', 'truecolor'],
    ['SHELL', '/usr/bin/bash'],
    ['DBUS_SESSION_BUS_ADDRESS', 'unix:path=/run/user/1000/bus'],
    ['TERM_PROGRAM', 'Apple_Terminal'],
    ['CLAUDECODE', '1'],
    ['HOMEBREW_PREFIX', '/opt/homebrew'],
    ['COMMAND_MODE', 'unix2003'],
    ['HOMEBREW_CACHE', '/Users/alice/Library/Caches/Homebrew/downloads/cache'],
    ['NVM_BIN', '/Users/alice/.nvm/versions/node/v20.11.1/bin/node'],
    ['MANPATH', '/usr/local/share/man:/usr/share/man:/opt/homebrew/share/man:/Library/Developer/CommandLineTools/usr/share/man'],
    ['VSCODE_GIT_ASKPASS_MAIN', '/Applications/Visual Studio Code.app/Contents/Resources/app/extensions/git/dist/askpass-main.js'],
    ['a repository URL', 'https://github.com/anthropics/claude-code-action'],
    ['a sentence', 'this is the secret we use for the deploy hook'],
    ['repeated', 'deadbeefdeadbeefdeadbeefdeadbeef'],
    ['a sequence', '0123456789abcdefghijklmnopqrstuvwxyz'],
    ['one character', 'x'.repeat(40)],
  ])('%s=%s is refused, and the reason never repeats the value', (_name, value) => {
    const weakness = secretWeakness(value);
    expect(weakness).toEqual(expect.any(String));
    // (A one-character value may well be a digit of the count it states.)
    if (value.length > 3) expect(weakness).not.toContain(value);
  });

  it('says why: too short, or guessable with an estimate under the bar', () => {
    expect(secretWeakness('truecolor')).toBe('it has 9 characters, and a secret needs at least 32');
    const path = '/Applications/Visual Studio Code.app/Contents/Resources/app/extensions/git/dist/askpass-main.js';
    expect(estimateSecretBits(path)).toBeLessThan(MIN_SECRET_BITS);
    expect(secretWeakness(path)).toMatch(/^it is guessable \(words, repeats and sequences; an estimated \d+ bits, and a secret needs 96\)$/);
  });

  it('judges a value of any size in bounded time (the first 256 characters)', () => {
    const huge = bytes(1, 96 * 1024, 'huge')[0]!.toString('base64');
    expect(secretWeakness(huge)).toBeUndefined();
    expect(secretWeakness('ab'.repeat(60_000))).toEqual(expect.any(String));
  });
});
