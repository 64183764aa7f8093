/**
 * The pages of the loopback receiver (docs/sign-in.md#sign-in-receiver). Every page is a fixed text:
 * nothing of the request (path, query, headers) is ever echoed (docs/sign-in.md#sign-in-receiver "Pages never echo request
 * content", docs/security.md#security-5), so a crafted redirect cannot inject markup and no code or state reaches
 * the browser history of another page.
 */
import type { ServerResponse } from 'node:http';

export type PageName = 'received' | 'bad' | 'notFound' | 'gone' | 'startAgainWarning' | 'method';

const PAGES: Record<PageName, { readonly status: number; readonly title: string; readonly text: string }> = {
  received: {
    status: 200,
    title: 'Sign-in',
    text: 'The bridge received the answer of the authorization server. You can close this window.',
  },
  bad: {
    status: 400,
    title: 'Not a sign-in of the bridge',
    text: 'This request does not belong to a sign-in that the bridge waits for.',
  },
  notFound: { status: 404, title: 'Not found', text: 'The bridge has no page at this address.' },
  gone: {
    status: 410,
    title: 'Start URL used twice',
    text:
      'This start URL was opened a second time, so the bridge stopped the sign-in: someone else may ' +
      'have opened it. Start the sign-in again.',
  },
  startAgainWarning: {
    status: 410,
    title: 'Start URL used twice',
    text:
      'This start URL was opened a second time after a sign-in had come back through it, so the ' +
      'bridge does not use that sign-in: someone else may have opened the start URL and signed in ' +
      'with their own account. Start the sign-in again.',
  },
  method: { status: 405, title: 'Method not allowed', text: 'The bridge answers only GET here.' },
};

/** Sends one fixed page and closes the connection (one request per connection). */
export function sendPage(response: ServerResponse, name: PageName): void {
  const page = PAGES[name];
  const body = Buffer.from(
    `<!doctype html><html><head><meta charset="utf-8"><title>${page.title}</title></head>` +
      `<body><p>${page.text}</p></body></html>\n`,
    'utf8',
  );
  response.writeHead(page.status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'none'",
    'X-Content-Type-Options': 'nosniff',
    ...(name === 'method' ? { Allow: 'GET' } : {}),
    Connection: 'close',
  });
  response.end(body);
}

/**
 * The one-time redirect of the start path: exactly the headers of docs/sign-in.md#sign-in-receiver (no `Date`, no body), so
 * that the browser goes on to the authorization URL without sending a referrer or caching it.
 */
export function sendStartRedirect(response: ServerResponse, location: string): void {
  response.sendDate = false;
  response.writeHead(303, {
    Location: location,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Length': '0',
    Connection: 'close',
  });
  response.end();
}
