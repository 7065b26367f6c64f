import { redactText } from '../lib/logger.js';

/** Shorter secrets are not replaced literally: that would mangle ordinary words in messages. */
const MIN_LITERAL_SECRET = 6;

/**
 * A scrubber for everything the client puts in a message or a log line. `redactText` catches `dt0c01.…` shapes
 * and `Api-Token=` parameters; the literal token is removed too, because tokens of another shape (embedded
 * server, pre-1.205 tokens) would otherwise pass.
 */
export function createRedactor(token: string): (text: string) => string {
  const literal = token.length >= MIN_LITERAL_SECRET ? token : undefined;
  return (text) => {
    const scrubbed = redactText(text);
    return literal === undefined ? scrubbed : scrubbed.split(literal).join('[REDACTED]');
  };
}

/** A URL fit for messages: userinfo replaced, then scrubbed. */
export function displayUrl(url: URL, redact: (text: string) => string): string {
  const copy = new URL(url.href);
  if (copy.username !== '' || copy.password !== '') {
    copy.username = 'REDACTED';
    copy.password = '';
  }
  return redact(copy.href.replace(/\/$/, ''));
}
