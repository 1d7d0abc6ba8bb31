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
  pending: Uint8Array[];
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
        client.data = { pending: [] };
        clients.add(client);
        void Bun.connect({
          hostname: targetHost,
          port: targetPort,
          socket: {
            data: (_up, chunk) => void client.write(chunk),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).then(
          (upstream) => {
            client.data.upstream = upstream;
            for (const chunk of client.data.pending) upstream.write(chunk);
            client.data.pending = [];
          },
          () => client.end(),
        );
      },
      data(client, chunk) {
        if (client.data.upstream) client.data.upstream.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
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
