/**
 * The `--batch` output, `<oid> blob <size>\n<bytes>\n` per object, cut into blobs however the chunks fall. Chunks are
 * joined once a blob is whole, not at every chunk: a 4 MiB blob arrives in 64 KiB pieces.
 */
export function batchParser(onBlob: (oid: string, bytes: Buffer) => Promise<void>): { push(chunk: Buffer): Promise<void>; done(expected: number): boolean } {
  let chunks: Buffer[] = [];
  let length = 0;
  /** The blob being read, once its header is: its id, where its bytes start and end in the joined chunks. */
  let next: { oid: string; start: number; end: number } | undefined;
  let count = 0;
  const joined = (): Buffer => {
    // Stryker disable next-line ConditionalExpression: speed only: one chunk is already the whole
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
    chunks = [whole];
    return whole;
  };
  return {
    async push(chunk) {
      chunks.push(chunk);
      length += chunk.length;
      for (;;) {
        // Stryker disable next-line ConditionalExpression: speed only: the header stays in front until its blob is whole, and reads the same again
        if (next === undefined) {
          const buffered = joined();
          const headerEnd = buffered.indexOf(0x0a);
          if (headerEnd < 0) return;
          const header = buffered.subarray(0, headerEnd).toString('utf8');
          const match = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(header);
          if (!match) throw new Error(`git cat-file: unexpected ${JSON.stringify(header.slice(0, 120))}`);
          next = { oid: match[1] as string, start: headerEnd + 1, end: headerEnd + 1 + Number(match[2]) };
        }
        // The blob and the newline after it.
        if (length < next.end + 1) return;
        const buffered = joined();
        const bytes = Buffer.from(buffered.subarray(next.start, next.end));
        const rest = buffered.subarray(next.end + 1);
        const { oid } = next;
        chunks = [rest];
        length = rest.length;
        next = undefined;
        count++;
        await onBlob(oid, bytes);
      }
    },
    done: (expected) => count === expected && length === 0,
  };
}
