// The part of the `ws` package (which ships no types) that wsh uses: the server's upgrade
// handling and the client WebSocket, whose browser-like API is the DOM's WebSocket.
declare module 'ws' {
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  export class WebSocket {
    constructor(url: string, options?: { headers?: Record<string, string>; origin?: string });
    binaryType: 'nodebuffer' | 'arraybuffer' | 'fragments';
    readonly bufferedAmount: number;
    readonly readyState: number;
    send(data: Uint8Array | string, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', cb: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', cb: (code: number, reason: Buffer) => void): this;
    on(event: 'open', cb: () => void): this;
    on(event: 'error', cb: (err: Error) => void): this;
    on(event: 'unexpected-response', cb: (req: unknown, res: IncomingMessage) => void): this;
    once(event: string, cb: (...args: any[]) => void): this; // any: ws's events carry different arguments
  }

  export class WebSocketServer {
    constructor(options: { noServer: true; maxPayload?: number; perMessageDeflate?: boolean });
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, cb: (ws: WebSocket) => void): void;
    close(): void;
  }

  export default WebSocket;
}
