import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCaFile } from '../../src/cli/caFile.js';
import { error, serve } from './parse.js';

/** A self-signed test certificate made for these tests (EC P-256, valid until 2126). */
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBoDCCAUegAwIBAgIUNy/N8OMnJGUxrwN8owv1OQriWkUwCgYIKoZIzj0EAwIw
JTEjMCEGA1UEAwwabWNwLWJyaWRnZS1zZGsgY2xpIHRlc3QgQ0EwIBcNMjYxMTMw
MTE0NTQyWhgPMjEyNjExMDYxMTQ1NDJaMCUxIzAhBgNVBAMMGm1jcC1icmlkZ2Ut
c2RrIGNsaSB0ZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEaGWqgW33
D/IO1TqPrSNEVMzAbF619mvXvg60njwpuoh1XeorsNRZu5Emt6UG8TGo0v8Kd5Bs
zcn6AMqzFqRTt6NTMFEwHQYDVR0OBBYEFNSmMcjgVs+By5DqdcX4De2vjlzOMB8G
A1UdIwQYMBaAFNSmMcjgVs+By5DqdcX4De2vjlzOMA8GA1UdEwEB/wQFMAMBAf8w
CgYIKoZIzj0EAwIDRwAwRAIgaaE5PSCFEOwqTxoq6GtPTdtgzSfeK/RpVIT3hdNr
m+YCIDfISXHJg8JwTwMv1gGX6/1njh7im6oqxMXIAlBAIN1d
-----END CERTIFICATE-----
`;

const URL = 'https://mcp.example.com/mcp';
const directory = mkdtempSync(join(tmpdir(), 'cli-ca-SECRET-DIR-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let count = 0;
function file(contents: string | Buffer): string {
  count += 1;
  const path = join(directory, `ca-${count}.pem`);
  writeFileSync(path, contents);
  return path;
}

function failure(path: string): string {
  const result = loadCaFile(path);
  if (result.ok) expect.fail('expected the CA file to be refused');
  expect(result.message).toMatch(/^cannot use the CA certificates of --ca-file: /);
  expect(result.message).not.toContain('SECRET');
  expect(result.message).not.toContain(directory);
  return result.message;
}

describe('loadCaFile (docs/http-upstream.md#http-client)', () => {
  it('loads a PEM file with one certificate', () => {
    expect(loadCaFile(file(CERTIFICATE))).toEqual({ ok: true, pem: CERTIFICATE });
  });

  it('loads a bundle with comments, a key-less text around and two certificates', () => {
    const bundle = `# private CA\n${CERTIFICATE}\nsubject=second\r\n${CERTIFICATE.replaceAll('\n', '\r\n')}`;
    expect(loadCaFile(file(bundle))).toEqual({ ok: true, pem: bundle });
  });

  it('refuses a file that does not exist, without naming the path', () => {
    expect(failure(join(directory, 'missing-SECRET.pem'))).toBe(
      'cannot use the CA certificates of --ca-file: the file cannot be read (ENOENT)',
    );
  });

  it('refuses a directory', () => {
    expect(failure(directory)).toBe(
      'cannot use the CA certificates of --ca-file: it names a directory, not a regular file',
    );
  });

  it('refuses an empty file and a file of blanks', () => {
    expect(failure(file(''))).toBe('cannot use the CA certificates of --ca-file: the file is empty');
    expect(failure(file(' \n\t\r\n'))).toBe('cannot use the CA certificates of --ca-file: the file is empty');
  });

  it('refuses a file without a certificate block, and never echoes its contents', () => {
    const key = '-----BEGIN PRIVATE KEY-----\nSECRET-123\n-----END PRIVATE KEY-----\n';
    expect(failure(file(key))).toMatch(/holds no PEM certificate/);
    expect(failure(file('SECRET-123 just text'))).toMatch(/holds no PEM certificate/);
  });

  it('refuses a block without its end line', () => {
    expect(failure(file(CERTIFICATE.replace('-----END CERTIFICATE-----', '')))).toMatch(
      /holds no PEM certificate/,
    );
  });

  it('refuses a block that is not a valid certificate and names it by number', () => {
    const broken = '-----BEGIN CERTIFICATE-----\nU0VDUkVULTEyMw==\n-----END CERTIFICATE-----\n';
    expect(failure(file(`${CERTIFICATE}${broken}`))).toBe(
      'cannot use the CA certificates of --ca-file: certificate 2 of the file is not a valid X.509 certificate',
    );
  });

  it('refuses binary contents', () => {
    expect(failure(file(Buffer.from([0, 1, 2, 255, 254, 0x53])))).toMatch(/holds no PEM certificate/);
  });
});

describe('--ca-file', () => {
  it('keeps the path and the checked PEM text', () => {
    const path = file(CERTIFICATE);
    expect(serve(['--ca-file', path, URL])).toMatchObject({ caFile: path, caPem: CERTIFICATE });
  });

  it('an unusable file is an error of the parse (exit code 2)', () => {
    expect(error(['--ca-file', join(directory, 'missing.pem'), URL])).toBe(
      'cannot use the CA certificates of --ca-file: the file cannot be read (ENOENT)',
    );
  });

  it('an empty path is not valid', () => {
    expect(error(['--ca-file=', URL])).toBe('the value of --ca-file is not valid: it must not be empty');
  });

  it('the last --ca-file wins and is the only one read', () => {
    const path = file(CERTIFICATE);
    expect(serve(['--ca-file', join(directory, 'missing.pem'), '--ca-file', path, URL]).caFile).toBe(path);
  });

  it('is checked after the other arguments', () => {
    expect(error(['--ca-file', join(directory, 'missing.pem'), 'http://mcp.example.com/'])).toMatch(
      /^the URL/,
    );
  });
});
