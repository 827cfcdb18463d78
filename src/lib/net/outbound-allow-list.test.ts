import { describe, expect, it } from 'vitest';

// The operator lets a local receiver through and nothing else (read before env() is first used).
process.env.ALLOW_PRIVATE_TARGETS = '127.0.0.1, ::1, 10.20.0.0/16';
const { checkTargetUrl, resolvePublicHost } = await import('./outbound.ts');
const { readEnv } = await import('../config/env.ts');

describe('ALLOW_PRIVATE_TARGETS as a list of addresses', () => {
  it('reads a flag or a list', () => {
    expect(readEnv({ ALLOW_PRIVATE_TARGETS: '1' })).toMatchObject({
      allowPrivateTargets: true,
      privateTargetAllowList: [],
    });
    expect(readEnv({})).toMatchObject({ allowPrivateTargets: false, privateTargetAllowList: [] });
    expect(readEnv({ ALLOW_PRIVATE_TARGETS: '127.0.0.1,::1' })).toMatchObject({
      allowPrivateTargets: false,
      privateTargetAllowList: ['127.0.0.1', '::1'],
    });
  });

  it('lets the listed addresses through and refuses every other private one', async () => {
    for (const url of ['http://127.0.0.1:8080/in', 'http://[::1]:8080/', 'http://localhost:9/', 'http://10.20.3.4/'])
      expect(checkTargetUrl(url, 'url').hostname).toBeTruthy();
    for (const url of [
      'http://169.254.169.254/',
      'http://127.0.0.2/',
      'http://10.21.0.1/',
      'http://[::ffff:169.254.169.254]/',
    ])
      expect(() => checkTargetUrl(url, 'url')).toThrow(/public address/);
    await expect(resolvePublicHost('127.0.0.1')).resolves.toHaveLength(1);
    await expect(resolvePublicHost('169.254.169.254')).rejects.toThrow(/not a public address/);
    // A caller that decides for itself (the refusal tests) is not overridden by the list.
    expect(() => checkTargetUrl('http://127.0.0.1/', 'url', ['http:'], { allowPrivate: false })).toThrow(
      /public address/,
    );
  });
});
