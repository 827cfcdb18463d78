import zlib from 'node:zlib';

/**
 * A small text extractor for credit-bureau PDFs: it reads every `stream … endstream` object, inflates
 * it when its dictionary names /FlateDecode (other filters are skipped, not guessed at), and collects
 * the strings shown by the text operators Tj, TJ, ' and " between BT and ET. Literal strings
 * (with their escapes) and hex strings are decoded as Latin-1 / PDFDocEncoding, which is what simple
 * generated reports use. It does not do font CMaps, so PDFs with Type0/CID fonts may give little text;
 * the file itself is always kept.
 */
export function extractPdfText(pdf: Uint8Array): string {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const source = bytes.toString('latin1');
  if (!source.startsWith('%PDF-')) return '';
  const lines: string[] = [];
  const streamRe = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamRe.exec(source))) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end < 0) break;
    const dictStart = source.lastIndexOf('<<', match.index);
    const dictionary = dictStart >= 0 ? source.slice(dictStart, match.index) : '';
    let data = bytes.subarray(start, end);
    // Trim the end-of-line before 'endstream'.
    while (data.length && (data[data.length - 1] === 0x0a || data[data.length - 1] === 0x0d))
      data = data.subarray(0, data.length - 1);
    streamRe.lastIndex = end + 'endstream'.length;
    let content: string;
    if (/\/Filter\s*\/FlateDecode|\/Filter\s*\[\s*\/FlateDecode\s*\]/.test(dictionary)) {
      try {
        content = zlib.inflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('latin1');
      } catch {
        continue;
      }
    } else if (/\/Filter/.test(dictionary)) {
      continue;
    } else {
      content = data.toString('latin1');
    }
    lines.push(...textOperators(content));
  }
  return lines
    .join('\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}

/** The strings shown in one content stream, one entry per text line (Td, TD, T-star and the quote operators start a new line). */
export function textOperators(content: string): string[] {
  const out: string[] = [];
  let line = '';
  let inText = false;
  let pending: string[] = [];
  let i = 0;
  const flush = () => {
    if (line.trim()) out.push(line.trim());
    line = '';
  };
  while (i < content.length) {
    const ch = content[i];
    if (ch === '(') {
      const [text, next] = readLiteral(content, i);
      pending.push(text);
      i = next;
      continue;
    }
    if (ch === '<' && content[i + 1] !== '<') {
      const close = content.indexOf('>', i);
      if (close < 0) break;
      pending.push(decodeHex(content.slice(i + 1, close)));
      i = close + 1;
      continue;
    }
    if (ch === '%') {
      const eol = content.slice(i).search(/[\r\n]/);
      i = eol < 0 ? content.length : i + eol;
      continue;
    }
    if (/[A-Za-z'"*]/.test(ch)) {
      let j = i;
      while (j < content.length && /[A-Za-z'"*]/.test(content[j])) j++;
      const op = content.slice(i, j);
      i = j;
      if (op === 'BT') {
        inText = true;
        pending = [];
        continue;
      }
      if (op === 'ET') {
        inText = false;
        flush();
        pending = [];
        continue;
      }
      if (!inText) {
        pending = [];
        continue;
      }
      if (op === 'Tj' || op === 'TJ') line += pending.join('');
      else if (op === "'" || op === '"') {
        flush();
        line += pending.join('');
      } else if (op === 'Td' || op === 'TD' || op === 'T*' || op === 'Tm') flush();
      pending = [];
      continue;
    }
    i++;
  }
  flush();
  return out;
}

function readLiteral(s: string, open: number): [string, number] {
  let depth = 1;
  let out = '';
  let i = open + 1;
  while (i < s.length && depth > 0) {
    const c = s[i];
    if (c === '\\') {
      const n = s[i + 1];
      const simple: Record<string, string> = {
        n: '\n',
        r: '\r',
        t: '\t',
        b: '\b',
        f: '\f',
        '(': '(',
        ')': ')',
        '\\': '\\',
      };
      if (n in simple) {
        out += simple[n];
        i += 2;
        continue;
      }
      if (/[0-7]/.test(n)) {
        const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1))![0];
        out += String.fromCharCode(parseInt(oct, 8));
        i += 1 + oct.length;
        continue;
      }
      if (n === '\r' || n === '\n') {
        i += n === '\r' && s[i + 2] === '\n' ? 3 : 2;
        continue;
      }
      i += 1;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') {
      depth--;
      if (depth === 0) {
        i++;
        break;
      }
    }
    out += c;
    i++;
  }
  return [out, i];
}

function decodeHex(hex: string): string {
  const clean = hex.replace(/[^0-9a-fA-F]/g, '');
  const even = clean.length % 2 ? `${clean}0` : clean;
  const buf = Buffer.from(even, 'hex');
  // UTF-16BE with a byte-order mark (common for PDF text strings).
  if (buf[0] === 0xfe && buf[1] === 0xff) {
    let out = '';
    for (let k = 2; k + 1 < buf.length; k += 2) out += String.fromCharCode((buf[k] << 8) | buf[k + 1]);
    return out;
  }
  return buf.toString('latin1');
}
