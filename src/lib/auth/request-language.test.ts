import { describe, expect, it } from 'vitest';
import { requestedLanguage } from './request-language.ts';

describe('language of a signed-out request', () => {
  it.each([
    ['/user/login?lang=fr', null, 'fr'],
    ['/user/login?lang=en', 'fr-FR,fr;q=0.9', 'en'],
    ['/user/login', 'fr-FR,fr;q=0.9,en;q=0.8', 'fr'],
    ['/user/login', 'de-DE,en;q=0.5,fr;q=0.9', 'fr'],
    ['/user/login', 'de-DE', 'en'],
    ['/user/login', null, 'en'],
    ['/user/login', 'fr;q=0, en', 'en'],
  ])('%s with Accept-Language %s → %s', (path, accept, expected) => {
    expect(requestedLanguage(new URL(path, 'http://x.test'), accept)).toBe(expected);
  });
});
