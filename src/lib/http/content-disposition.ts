/**
 * A Content-Disposition header for a file name that may hold anything a user typed: an ASCII
 * `filename` with quotes, backslashes, control and non-ASCII characters replaced (older clients), and
 * the exact name as RFC 5987 `filename*` (UTF-8, percent-encoded). No name can end the parameter, add
 * a header line, or carry a path.
 */
export function contentDisposition(kind: 'attachment' | 'inline', fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() || 'download';
  const ascii = base.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(base).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
