import fs from 'node:fs';
import { once } from 'node:events';
import { cellText, neutralise, type ExportCell } from './cells.ts';

/**
 * RFC 4180 CSV streamed to a file: CRLF line ends, fields quoted when they hold a quote, comma or
 * line break, a UTF-8 byte-order mark so spreadsheet programs read accents right. Writes wait for
 * the stream to drain, so memory stays flat however many rows come.
 */
export type CsvWriter = {
  writeHeader(labels: readonly string[]): Promise<void>;
  writeRow(cells: readonly ExportCell[]): Promise<void>;
  close(): Promise<void>;
  /** Removes the partial file after a failure. */
  abort(): Promise<void>;
};

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function openCsvWriter(filePath: string): CsvWriter {
  const stream = fs.createWriteStream(filePath, { encoding: 'utf8' });
  const write = async (line: string) => {
    if (!stream.write(line)) await once(stream, 'drain');
  };
  let isStarted = false;
  const start = async () => {
    if (!isStarted) {
      isStarted = true;
      await write('\uFEFF');
    }
  };
  return {
    async writeHeader(labels) {
      await start();
      await write(`${labels.map((l) => csvField(neutralise(l))).join(',')}\r\n`);
    },
    async writeRow(cells) {
      await start();
      await write(`${cells.map((c) => csvField(cellText(c))).join(',')}\r\n`);
    },
    async close() {
      stream.end();
      await once(stream, 'finish');
    },
    async abort() {
      stream.destroy();
      await fs.promises.rm(filePath, { force: true });
    },
  };
}
