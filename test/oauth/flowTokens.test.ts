import { describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { codeError, refusal, safeCode } from '../../src/oauth/flow.js';
import { tokenRecord, usableAt } from '../../src/oauth/tokens.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';

const key = {
  url: 'https://mcp.example/mcp',
  identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback',
};
const clientReg = { clientId: 'c1', source: 'dynamic', authMethod: 'none' } as const;

describe('tokenRecord', () => {
  it('makes a record from a token response', () => {
    expect(
      tokenRecord({
        key,
        issuer: 'https://as.example',
        resource: 'https://mcp.example/mcp',
        client: clientReg,
        response: {
          access_token: 'at-1',
          token_type: 'bearer',
          expires_in: 3600,
          refresh_token: 'rt-1',
          scope: 'a b',
        },
        requestedScope: 'a b c',
        now: 1_000,
      }),
    ).toEqual({
      version: 1,
      ...key,
      issuer: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      client: clientReg,
      accessToken: 'at-1',
      tokenType: 'Bearer',
      expiresAt: 3_601_000,
      refreshToken: 'rt-1',
      scope: 'a b',
      savedAt: 1_000,
    });
  });

  it('after a refresh keeps the old refresh token and scope when none came, and is later than the old record', () => {
    const previous = tokenRecord({
      key,
      issuer: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      client: clientReg,
      response: { access_token: 'at-1', refresh_token: 'rt-1', scope: 'a' },
      requestedScope: undefined,
      now: 5_000,
    });
    const next = tokenRecord({
      key,
      issuer: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      client: clientReg,
      response: { access_token: 'at-2' },
      requestedScope: undefined,
      previous,
      now: 4_000, // a clock that went back
    });
    expect(next).toMatchObject({ accessToken: 'at-2', refreshToken: 'rt-1', scope: 'a', savedAt: 5_001 });
    expect(next.expiresAt).toBeUndefined();
  });

  it('keeps the grant and the IdP issuer of an id-jag sign-in through a refresh', () => {
    const previous = tokenRecord({
      key,
      issuer: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      client: clientReg,
      response: { access_token: 'at-1', refresh_token: 'rt-1' },
      requestedScope: undefined,
      grant: 'id-jag',
      idpIssuer: 'https://idp.example',
      now: 5_000,
    });
    expect(previous).toMatchObject({ grant: 'id-jag', idpIssuer: 'https://idp.example' });
    const next = tokenRecord({
      key,
      issuer: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      client: clientReg,
      response: { access_token: 'at-2' },
      requestedScope: undefined,
      previous,
      now: 6_000,
    });
    expect(next).toMatchObject({ accessToken: 'at-2', grant: 'id-jag', idpIssuer: 'https://idp.example' });
  });
});

describe('usableAt (docs/sign-in.md#sign-in-trigger: a margin of one minute)', () => {
  const record = { expiresAt: 100_000 } as TokenRecord;
  it('is usable beyond the margin only', () => {
    expect(usableAt(record, 39_999)).toBe(true);
    expect(usableAt(record, 40_000)).toBe(false);
    expect(usableAt({} as TokenRecord, 10 ** 15)).toBe(true);
  });
});

describe('the errors of the redirect and the token request', () => {
  const response = (params: Record<string, string>): client.AuthorizationResponseError =>
    new client.AuthorizationResponseError('authorization response from the server is an error', {
      cause: new URLSearchParams(params),
    });

  it('access_denied is sign_in_denied; another code is sign_in_error with the code', () => {
    expect(codeError(response({ error: 'access_denied' }))).toMatchObject({
      code: 'sign_in_denied',
      detail: 'access_denied',
    });
    expect(codeError(response({ error: 'invalid_scope' }))).toMatchObject({
      code: 'sign_in_error',
      detail: 'the error code is invalid_scope',
    });
  });

  it('a code that is not a plain token is not repeated', () => {
    expect(codeError(response({ error: 'x y\n<script>' }))).toMatchObject({
      detail: 'the error code is not valid',
    });
    expect(safeCode('a'.repeat(65))).toBe('not valid');
    expect(safeCode(undefined)).toBe('not valid');
    expect(safeCode('server_error')).toBe('server_error');
  });

  it('other failures are sign_in_failed with the status of the refusal', () => {
    expect(codeError(new TypeError('x'))).toMatchObject({
      code: 'sign_in_failed',
      detail: 'the token request failed: the request failed',
    });
    expect(refusal({ status: 503 })).toBe('HTTP status 503');
    expect(refusal({ cause: { status: 502 } })).toBe('HTTP status 502');
  });
});
