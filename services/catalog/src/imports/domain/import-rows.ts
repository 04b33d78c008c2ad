import { createHash } from 'node:crypto';
import { ImportRow, schemaValidator, type JobRowError } from '@catalog/contracts';
import type { ImportRecord } from './import-records.js';

/** A row of an import file that passed its checks, with its row number and, without DMRN or externalId, its natural key. */
export interface CheckedRow {
  row: number;
  value: ImportRow;
  naturalKey: string | null;
}

const checkRow = schemaValidator(ImportRow);

/**
 * The natural key of a row without DMRN and externalId (decision 0134): a hash of its type, title
 * and artist, by which a later import of the same row finds the entity this one made.
 */
export function naturalKeyOf(value: ImportRow): string | null {
  if (value.dmrn !== undefined || value.externalId !== undefined) return null;
  return createHash('sha256')
    .update(JSON.stringify([value.type, value.title, value.artist ?? null]))
    .digest('base64url');
}

/** A record as a checked row, or the error the job reports for it. */
export function checkRecord(record: ImportRecord): CheckedRow | JobRowError {
  if ('problem' in record) return { row: record.row, ...record.problem };
  const issues = checkRow(record.value);
  if (issues.length > 0) {
    const message = issues
      .slice(0, 3)
      .map((issue) => `${issue.path === '' ? '/' : issue.path} ${issue.message}`)
      .join('; ');
    return { row: record.row, code: 'invalid_row', message };
  }
  const value = record.value as ImportRow;
  return { row: record.row, value, naturalKey: naturalKeyOf(value) };
}
