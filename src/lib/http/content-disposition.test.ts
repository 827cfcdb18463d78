import { describe, expect, it } from 'vitest';
import { contentDisposition } from './content-disposition.ts';

describe('contentDisposition', () => {
  it('keeps hostile names inside their parameter', () => {
    const header = contentDisposition('attachment', 'a"; filename=evil.html\r\nSet-Cookie: x=1 <script>é.txt');
    expect(header).not.toMatch(/[\r\n]/);
    expect(
      header.startsWith(
        'attachment; filename="a__ filename=evil.html__Set-Cookie: x=1 <script>_.txt"; filename*=UTF-8\'\'',
      ),
    ).toBe(true);
    expect(decodeURIComponent(header.split("UTF-8''")[1])).toBe(
      'a"; filename=evil.html\r\nSet-Cookie: x=1 <script>é.txt',
    );
    expect(contentDisposition('inline', '../../etc/passwd')).toBe(
      'inline; filename="passwd"; filename*=UTF-8\'\'passwd',
    );
  });
});
