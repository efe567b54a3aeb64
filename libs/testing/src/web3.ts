/** The part of web3.js's WebSocket client (rpc-websockets) a test must reach to close it. */
interface RpcWebSocket {
  setAutoReconnect(reconnect: boolean): void;
  close(): void;
}

/**
 * Closes the WebSocket of a `@solana/web3.js` Connection for good. web3.js has no public
 * `close()`: it shuts an idle socket 500 ms after its last subscription, but a socket
 * the server drops (a devnet stopped) it reconnects every second, without limit, and
 * that timer keeps a jest worker alive after its tests. A test calls this before it
 * stops the devnet the connection talks to.
 */
export function closeWeb3Connection(connection: object): void {
  const socket = (connection as { _rpcWebSocket?: RpcWebSocket })._rpcWebSocket;
  // A web3.js that renamed the field must fail here, not leave a worker running.
  if (socket === undefined || typeof socket.setAutoReconnect !== 'function') throw new Error('closeWeb3Connection: not a @solana/web3.js 1.x Connection');
  socket.setAutoReconnect(false);
  socket.close();
}
