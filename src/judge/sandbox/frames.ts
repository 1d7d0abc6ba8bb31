/**
 * Reads exact byte counts from a stream of chunks: the container's replies (container.ts) are a
 * length, a JSON header and two byte strings, split across chunks however the pipe delivered them.
 */
export class FrameReader {
  private readonly chunksIn: AsyncIterator<Uint8Array>;
  private chunks: Uint8Array[] = [];
  private buffered = 0;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.chunksIn = stream[Symbol.asyncIterator]();
  }

  /** The next `size` bytes, or null when the stream ends first. */
  async read(size: number): Promise<Uint8Array | null> {
    while (this.buffered < size) {
      const { done, value } = await this.chunksIn.next();
      if (done) return null;
      this.chunks.push(value);
      this.buffered += value.length;
    }
    const whole = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const taken = whole.slice(0, size);
    const rest = whole.subarray(size);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}
