import { describe, expect, it } from 'vitest';
import { verificationTarget } from '../../../src/oauth/device/verification.js';

describe('device grant verification target', () => {
  it('prefers verification_uri_complete', () => {
    expect(
      verificationTarget({
        verification_uri: 'https://as.example/device',
        verification_uri_complete: 'https://as.example/device?user_code=ABCD-EFGH',
        user_code: 'ABCD-EFGH',
      }),
    ).toEqual({
      url: 'https://as.example/device?user_code=ABCD-EFGH',
      userCode: 'ABCD-EFGH',
      complete: true,
    });
  });
  it('falls back to verification_uri with the user code beside it', () => {
    expect(
      verificationTarget({ verification_uri: 'https://as.example/device', user_code: 'WXYZ-1234' }),
    ).toEqual({
      url: 'https://as.example/device',
      userCode: 'WXYZ-1234',
      complete: false,
    });
  });
});
