import ExcelJS from 'exceljs';
import type { Tx } from '../db/index.ts';
import type { PermissionKey } from '../auth/permissions.ts';
import { csvField } from '../exports/csv-writer.ts';
import { neutralise } from '../exports/cells.ts';
import { GRANT_TREE, grantSource, type GrantSource } from './grants.ts';
import type { GrantLabels, Translate } from './labels.ts';
import { listRoles, usersByRole, type RoleUser } from './roles.ts';

/**
 * The permissions page and GET /v1/permissions: every key of the permission table against every role
 * of the tenant, each cell saying how the role holds the key (the key itself, its resource, its area,
 * as the Administrator role, or not), with the users of each role. Exported as CSV or XLSX with
 * formula-looking text neutralised, as the list exports are (src/lib/exports/cells.ts).
 */

/** How a role holds a key: a grant of ./grants.ts, or 'admin' for the Administrator role. */
export type MatrixCell = Exclude<GrantSource, null> | 'admin' | null;

export type MatrixRole = { id: string; name: string; isAdmin: boolean; users: RoleUser[] };
export type MatrixRow = { key: PermissionKey; area: string; resource: string; action: string; cells: MatrixCell[] };
export type PermissionMatrix = { roles: MatrixRole[]; rows: MatrixRow[] };

export async function permissionMatrix(tx: Tx): Promise<PermissionMatrix> {
  const [roles, users] = await Promise.all([listRoles(tx), usersByRole(tx)]);
  const grants = roles.map((role) => new Set(role.permissions));
  const rows: MatrixRow[] = GRANT_TREE.flatMap(({ area, resources }) =>
    resources.flatMap(({ resource, keys }) =>
      keys.map(({ key, action }) => ({
        key,
        area,
        resource,
        action,
        cells: roles.map((role, i) => (role.isAdmin ? 'admin' : grantSource(grants[i], key))),
      })),
    ),
  );
  return {
    roles: roles.map((role) => ({
      id: role.id,
      name: role.name,
      isAdmin: role.isAdmin,
      users: users.get(role.id) ?? [],
    })),
    rows,
  };
}

/** Lower case without accents, so "prets" finds "Prêts". */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export type MatrixFilter = { area?: string | null; text?: string | null };

/** The rows of one area and/or whose key or human path contains the text. */
export function filterMatrix(matrix: PermissionMatrix, filter: MatrixFilter, labels: GrantLabels): PermissionMatrix {
  const text = foldText(filter.text?.trim() ?? '');
  const rows = matrix.rows.filter(
    (row) =>
      (!filter.area || row.area === filter.area) &&
      (!text || foldText(row.key).includes(text) || foldText(labels.grant(row.key)).includes(text)),
  );
  return { ...matrix, rows };
}

/** The matrix as JSON: roles with their users, and per key the cell of each role by role id. */
export function matrixJson(matrix: PermissionMatrix) {
  return {
    roles: matrix.roles.map((r) => ({
      id: r.id,
      name: r.name,
      isAdmin: r.isAdmin,
      users: r.users.map((u) => ({ id: u.id, displayName: u.displayName, email: u.email, isActive: u.isActive })),
    })),
    keys: matrix.rows.map((row) => ({
      key: row.key,
      area: row.area,
      resource: row.resource,
      action: row.action,
      grants: Object.fromEntries(matrix.roles.map((r, i) => [r.id, row.cells[i]])),
    })),
  };
}

/** The words of a cell in an export ('' for not granted). */
export function cellWords(cell: MatrixCell, t: Translate): string {
  return cell ? t(`roles:matrix.cell.${cell}`) : '';
}

function table(matrix: PermissionMatrix, labels: GrantLabels, t: Translate): string[][] {
  const header = [
    t('roles:matrix.columns.area'),
    t('roles:matrix.columns.resource'),
    t('roles:matrix.columns.action'),
    t('roles:matrix.columns.key'),
    ...matrix.roles.map((r) => r.name),
  ];
  const body = matrix.rows.map((row) => [
    labels.area(row.area),
    labels.resource(row.area, row.resource),
    labels.action(row.action),
    row.key,
    ...row.cells.map((cell) => cellWords(cell, t)),
  ]);
  // Role names are typed by people: a name starting with "=" must stay text in a spreadsheet.
  return [header, ...body].map((line) => line.map(neutralise));
}

/** RFC 4180 CSV with a byte-order mark (spreadsheets then read accents right) and CRLF line ends. */
export function matrixCsv(matrix: PermissionMatrix, labels: GrantLabels, t: Translate): string {
  return `\uFEFF${table(matrix, labels, t)
    .map((line) => line.map(csvField).join(','))
    .join('\r\n')}\r\n`;
}

/** The same table as one XLSX sheet, header in bold, first column and row frozen. */
export async function matrixXlsx(
  matrix: PermissionMatrix,
  labels: GrantLabels,
  t: Translate,
): Promise<Uint8Array<ArrayBuffer>> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(t('roles:matrix.sheet').slice(0, 31), {
    views: [{ state: 'frozen', xSplit: 4, ySplit: 1 }],
  });
  for (const line of table(matrix, labels, t)) sheet.addRow(line);
  sheet.getRow(1).font = { bold: true };
  // exceljs types its answer as its own Buffer interface; at run time it is a Node Buffer (bytes).
  return new Uint8Array((await workbook.xlsx.writeBuffer()) as unknown as ArrayLike<number>);
}
