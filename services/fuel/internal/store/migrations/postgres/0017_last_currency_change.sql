-- The owner's last currency conversion (proto-docs/fuel-decisions.md,
-- "The last conversion"), written in the transaction of the conversion so
-- that any device can offer its undo: the codes, the rate as it was sent
-- (text: its digits, not a float), whether it was sent as inverse_rate,
-- and when. All NULL when there is nothing to undo (never converted, or
-- relabelled or undone since).
ALTER TABLE user_preferences ADD COLUMN last_change_from varchar(3) CHECK (last_change_from ~ '^[A-Z]{3}$');
ALTER TABLE user_preferences ADD COLUMN last_change_to varchar(3) CHECK (last_change_to ~ '^[A-Z]{3}$');
ALTER TABLE user_preferences ADD COLUMN last_change_rate varchar(32) CHECK (last_change_rate <> '');
ALTER TABLE user_preferences ADD COLUMN last_change_inverse boolean;
ALTER TABLE user_preferences ADD COLUMN last_change_at timestamptz;
ALTER TABLE user_preferences ADD CONSTRAINT user_preferences_last_change_whole CHECK (
    (last_change_from IS NULL) = (last_change_to IS NULL) AND (last_change_from IS NULL) = (last_change_rate IS NULL)
    AND (last_change_from IS NULL) = (last_change_inverse IS NULL) AND (last_change_from IS NULL) = (last_change_at IS NULL));
