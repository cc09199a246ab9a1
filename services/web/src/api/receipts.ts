// Typed client of docqa's receipt scan (issue 56): POST /api/receipts/scan
// with the photo as multipart `file` and the owner's region; the answer is
// what the photo's receipt prints, each field absent when it does not print
// it. Only the scan's chunk imports it (components/receipt-scan.tsx).
import { ApiError, NetworkError, request } from './http';
import type { Scan } from '../lib/receipts';

export type { ReceiptField, ReceiptFields, ReceiptKind, Scan } from '../lib/receipts';

export const SCAN_PATH = '/api/receipts/scan';

/** scanReceipt sends the photo to be read; region is the owner's country (ISO 3166), a hint for dates and currencies. */
export function scanReceipt(photo: Blob, name: string, region?: string): Promise<Scan> {
  const form = new FormData();
  if (region) form.append('region', region);
  form.append('file', photo, name);
  return request<Scan>('POST', SCAN_PATH, { body: form });
}

/**
 * unreachable: the scan got no answer from docqa (no connection, or the
 * gateway could not reach it): the photo waits as a draft and is read later.
 * docqa's own 503 (a server without OCR) is an answer: it is said, not waited on.
 */
export function unreachable(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof ApiError && (err.status === 502 || err.status === 504 || (err.status === 503 && err.code.startsWith('HTTP_')));
}
