-- A reminder's last_done may be a reading without its day ("oil changed
-- at 15 000 km", the date forgotten; proto-docs/fuel-decisions.md,
-- "Reminders"): last_done_time may be NULL beside a last_done_odometer,
-- but not when the reminder counts months, which count from a day
-- (fuel.Reminder.Validate says so first). 0011's unnamed table CHECK
-- (last_done_time IS NOT NULL OR last_done_odometer IS NULL) is its
-- second, reminders_check1.
ALTER TABLE reminders DROP CONSTRAINT reminders_check1;
ALTER TABLE reminders ADD CONSTRAINT reminders_last_done_time_with_months
    CHECK (last_done_time IS NOT NULL OR last_done_odometer IS NULL OR every_months IS NULL);
