import { describe, expect, it } from 'vitest';
import { saysOverdue } from './reminder-status';

describe('saysOverdue: whether the phrase itself says "overdue" (no badge beside it then)', () => {
  it.each([
    [{ due_in_km: -760, due_in_days: null }, true],
    [{ due_in_km: null, due_in_days: -3 }, true],
    [{ due_in_km: 200, due_in_days: -1 }, true],
    // Due today: overdue by status, but the phrase says "due now": the badge says "Overdue".
    [{ due_in_km: 0, due_in_days: null }, false],
    [{ due_in_km: null, due_in_days: 0 }, false],
    [{ due_in_km: 800, due_in_days: 20 }, false],
    [{ due_in_km: null, due_in_days: null }, false],
  ])('%o -> %s', (r, want) => {
    expect(saysOverdue(r)).toBe(want);
  });
});
