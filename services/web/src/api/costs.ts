// Typed client of fuel-service's costs: expenses, reminders and the
// attachments of expenses and refuels (proto-docs/fuel-service.openapi.yaml).
// Only the pages of costs import it, so it loads with their chunk.
import { request, send } from './http';
import { jsonWithDecimals, type Dec } from '../lib/decimal';

/** The categories of expenses and reminders, in the order the picker offers them. */
export const CATEGORIES = ['service', 'repair', 'tyres', 'inspection', 'insurance', 'tax', 'parking', 'toll', 'wash', 'fine', 'accessory', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface ExpenseItem {
  name: string;
  part_number?: string;
  quantity?: number;
  unit_price?: number;
}

export interface Expense {
  id: number;
  vehicle_id: number;
  time: string;
  /** km; null when not recorded. */
  odometer: number | null;
  category: Category;
  title: string;
  amount: number;
  vendor: string;
  notes: string;
  items: ExpenseItem[];
  tags: string[];
  created_at?: string;
  updated_at?: string;
}

/** ExpenseInput: what the form sends; amounts and the odometer are exact decimals. */
export interface ExpenseInput {
  vehicle_id: number;
  time: string;
  odometer?: Dec | null;
  category: Category;
  title: string;
  amount: Dec;
  vendor: string;
  notes: string;
}

export type ReminderStatus = 'ok' | 'soon' | 'overdue';

export interface Reminder {
  id: number;
  vehicle_id: number;
  title: string;
  category: Category;
  /** Matching expenses (which move last_done on) are of the category and, when set, have this in their title. */
  match?: string;
  every_km: number | null;
  every_months: number | null;
  /**
   * time is null for a reading given without its day (a reminder without
   * every_months); expense_id is set when it is a matching expense's, newer
   * than the owner's own (which is then not answered).
   */
  last_done: { time: string | null; odometer: number | null; expense_id?: number | null } | null;
  notes: string;
  soon_km: number;
  soon_days: number;
  // Computed by the service on each read.
  due_odometer: number | null;
  due_date: string | null;
  due_in_km: number | null;
  due_in_days: number | null;
  status: ReminderStatus;
  estimated_due_date: string | null;
}

export interface ReminderInput {
  vehicle_id?: number;
  title?: string;
  category?: Category;
  every_km?: Dec | null;
  every_months?: number | null;
  last_done?: { time?: string | null; odometer?: Dec | null } | null;
  notes?: string;
}

export interface Attachment {
  id: number;
  file_name: string;
  content_type: string;
  size: number;
  sha256?: string;
  created_at: string;
  /** The file's path on the gateway. */
  url?: string;
  /** A photo's small JPEG; null for a PDF. */
  thumbnail_url?: string | null;
}

/** Whose attachments: an expense's or a refuel's. */
export type AttachmentOwner = 'expenses' | 'refuels';

const id = (n: number | string) => encodeURIComponent(String(n));

export const costPaths = {
  expenses: (vehicle: number) => `/api/expenses?vehicle_id=${id(vehicle)}`,
  expense: (e: number) => `/api/expenses/${id(e)}`,
  createExpense: '/api/expenses',
  /** The vehicle's expenses as CSV (this app's columns; spreadsheet: for Excel and LibreOffice), times in the zone tz (the owner's). */
  expensesCsv: (vehicle: number, tz: string, spreadsheet = false) =>
    `/api/vehicles/${id(vehicle)}/expenses.csv?${spreadsheet ? 'spreadsheet=true&' : ''}tz=${encodeURIComponent(tz)}`,
  reminders: (vehicle: number) => `/api/reminders?vehicle_id=${id(vehicle)}`,
  reminder: (r: number) => `/api/reminders/${id(r)}`,
  /** owner's id may be the outbox's PARENT_ID placeholder, for a record not stored yet. */
  attachments: (owner: AttachmentOwner, ownerId: number | string) => `/api/${owner}/${typeof ownerId === 'number' ? id(ownerId) : ownerId}/attachments`,
  attachment: (owner: AttachmentOwner, ownerId: number, a: number) => `/api/${owner}/${id(ownerId)}/attachments/${id(a)}`,
  thumbnail: (owner: AttachmentOwner, ownerId: number, a: number) => `/api/${owner}/${id(ownerId)}/attachments/${id(a)}?variant=thumbnail`,
};

export const costs = {
  updateExpense: (eid: number, e: Partial<ExpenseInput>) => request<Expense>('PUT', costPaths.expense(eid), { body: jsonWithDecimals(e) }),
  deleteExpense: (eid: number) => request<void>('DELETE', costPaths.expense(eid)),
  createReminder: (r: ReminderInput, key: string) =>
    request<Reminder>('POST', '/api/reminders', { body: jsonWithDecimals(r), headers: { 'Idempotency-Key': key } }),
  updateReminder: (rid: number, r: ReminderInput) => request<Reminder>('PUT', costPaths.reminder(rid), { body: jsonWithDecimals(r) }),
  deleteReminder: (rid: number) => request<void>('DELETE', costPaths.reminder(rid)),
  attachments: (owner: AttachmentOwner, ownerId: number) => request<Attachment[]>('GET', costPaths.attachments(owner, ownerId)),
  deleteAttachment: (owner: AttachmentOwner, ownerId: number, a: number) => request<void>('DELETE', costPaths.attachment(owner, ownerId, a)),
  /** file: an attachment (or its thumbnail) as a Blob, fetched with the bearer token an <img> cannot send. */
  file: async (path: string) => (await send('GET', path, { headers: { Accept: '*/*' } })).blob(),
};
