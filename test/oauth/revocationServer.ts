/**
 * A small hand-written authorization server on loopback http for the token revocation at logout
 * (RFC 7009, src/oauth/revocation.ts): its metadata names a revocation endpoint (or none, or
 * another URL), and the endpoint records each request and answers by `answer`. Shared by
 * revocation.test.ts and the logout tests of e2eAccounts.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Revocation {
  readonly token: string | null;
  readonly hint: string | null;
  readonly clientId: string | null;
  readonly secretInBody: string | null;
  readonly basic: boolean;
}

export interface RevocationServer {
  readonly issuer: string;
  readonly revocations: Revocation[];
  /** Resolves at the first revocation request that arrives. */
  readonly arrived: Promise<void>;
  close(): Promise<void>;
}

/** `ok`: 200; `error`: 400 invalid_client; `status500`: 500 with a text body; `hang`: never. */
export type RevocationAnswer = 'ok' | 'error' | 'status500' | 'hang';

export async function startRevocationServer(options: {
  answer: RevocationAnswer;
  endpoint?: boolean;
  endpointUrl?: string;
}): Promise<RevocationServer> {
  const revocations: Revocation[] = [];
  let arrive = (): void => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const read = async (request: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'GET' && request.url === '/.well-known/oauth-authorization-server') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            ...(options.endpoint === false
              ? {}
              : { revocation_endpoint: options.endpointUrl ?? `${issuer}/revoke` }),
            code_challenge_methods_supported: ['S256'],
          }),
        );
        return;
      }
      if (request.method === 'POST' && request.url === '/revoke') {
        const form = new URLSearchParams(await read(request));
        revocations.push({
          token: form.get('token'),
          hint: form.get('token_type_hint'),
          clientId: form.get('client_id'),
          secretInBody: form.get('client_secret'),
          basic: /^basic /i.test(request.headers.authorization ?? ''),
        });
        arrive();
        if (options.answer === 'hang') return;
        if (options.answer === 'status500')
          response.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
        else if (options.answer === 'error')
          response
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_client' }));
        else response.writeHead(200).end();
        return;
      }
      response.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    revocations,
    arrived,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
