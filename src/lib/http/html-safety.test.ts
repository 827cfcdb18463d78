import { describe, expect, it } from 'vitest';
import { jsonForScript, safeUrl } from './html-safety.ts';

describe('jsonForScript', () => {
  it('leaves nothing that can close a script element or end a line, and reads back unchanged', () => {
    const value = { name: 'Eve </script><script>__xss(1)</script> <!-- ]]> & \u2028\u2029 `${x}`', n: 1 };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
    expect(jsonForScript(undefined)).toBe('null');
  });
});

describe('safeUrl', () => {
  it('keeps same-origin paths', () => {
    expect(safeUrl('/loans/customers?q=%3Cscript%3E')).toBe('/loans/customers?q=%3Cscript%3E');
    expect(safeUrl('  /v1/downloads/1/file ')).toBe('/v1/downloads/1/file');
  });

  it('refuses script schemes however they are spelled, and protocol-relative hosts', () => {
    const hostile = [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' \t\u0001javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      '&#106;avascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      '//evil.test/x',
      '/\\evil.test',
      '\u0000/\\evil.test',
      'https:evil',
      '',
      null,
      undefined,
    ];
    for (const url of hostile) expect(safeUrl(url), String(url)).toBe('#');
    for (const url of hostile.slice(0, 8)) expect(safeUrl(url, { allowExternal: true }), String(url)).toBe('#');
  });

  it('allows http(s) only where external links are meant', () => {
    expect(safeUrl('https://example.com/a?b=1')).toBe('#');
    expect(safeUrl('https://example.com/a?b=1', { allowExternal: true })).toBe('https://example.com/a?b=1');
    expect(safeUrl('ftp://example.com', { allowExternal: true, fallback: '' })).toBe('');
  });
});
