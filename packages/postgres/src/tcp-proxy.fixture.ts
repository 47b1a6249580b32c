/**
 * A loopback TCP proxy in front of the PostgreSQL server that a test can cut: every open
 * connection is reset and new ones are refused until it is restored — an outage as clients see it.
 */
import net from "node:net";

export interface TcpProxy {
  /** `host:port` to connect to instead of the server. */
  port: number;
  /** Reset every connection and refuse new ones for `ms`. */
  cut(ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let downUntil = 0;
  const server = net.createServer((client) => {
    if (Date.now() < downUntil) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return {
    port: address.port,
    cut(ms) {
      downUntil = Date.now() + ms;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
