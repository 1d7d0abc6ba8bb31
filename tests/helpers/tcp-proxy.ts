import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL, Redis), which a test can cut and
 * restore: an outage as the app sees it (connections reset, new ones refused), without stopping the
 * server that other tests use.
 */
export interface TcpProxy {
  port: number;
  url: (original: string) => string;
  /** Drops every open connection and refuses new ones. */
  cut: () => void;
  restore: () => void;
  close: () => void;
}

interface Pair {
  upstream?: Socket<unknown>;
  /** Bytes for the upstream before it connected, or that it could not take yet. */
  toUpstream: Uint8Array[];
  /** Bytes for the client that it could not take yet. */
  toClient: Uint8Array[];
}

/**
 * Writes what the socket takes and keeps the rest, in order, for its `drain`: a write may take part of a chunk
 * when the peer reads slowly, and a proxy that dropped the rest would hang the request it carried.
 */
function send(socket: Socket<unknown> | undefined, queue: Uint8Array[], chunk?: Uint8Array): void {
  if (chunk) queue.push(new Uint8Array(chunk));
  if (!socket) return;
  while (queue.length > 0) {
    const written = socket.write(queue[0]);
    if (written >= queue[0].length) queue.shift();
    else {
      queue[0] = queue[0].subarray(Math.max(0, written));
      return;
    }
  }
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  let down = false;
  const clients = new Set<Socket<Pair>>();
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        if (down) return void client.end();
        client.data = { toUpstream: [], toClient: [] };
        clients.add(client);
        void Bun.connect({
          hostname: targetHost,
          port: targetPort,
          socket: {
            data: (_up, chunk) => send(client, client.data.toClient, chunk),
            drain: (up) => send(up, client.data.toUpstream),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).then(
          (upstream) => {
            client.data.upstream = upstream;
            send(upstream, client.data.toUpstream);
          },
          () => client.end(),
        );
      },
      data(client, chunk) {
        send(client.data.upstream, client.data.toUpstream, chunk);
      },
      drain(client) {
        send(client, client.data.toClient);
      },
      close(client) {
        clients.delete(client);
        client.data?.upstream?.end();
      },
      error(client) {
        client.data?.upstream?.end();
      },
    },
  });
  const port = listener.port;
  return {
    port,
    url: (original) => Object.assign(new URL(original), { port: String(port), hostname: "127.0.0.1" }).toString(),
    cut: () => {
      down = true;
      for (const client of clients) {
        client.data?.upstream?.terminate();
        client.terminate();
      }
      clients.clear();
    },
    restore: () => {
      down = false;
    },
    close: () => listener.stop(true),
  };
}
