-- The owner's last currency conversion, kept for its undo (see the
-- PostgreSQL migration of the same version).
ALTER TABLE user_preferences ADD COLUMN last_change_from TEXT CHECK (length(last_change_from) = 3);
ALTER TABLE user_preferences ADD COLUMN last_change_to TEXT CHECK (length(last_change_to) = 3);
ALTER TABLE user_preferences ADD COLUMN last_change_rate TEXT CHECK (length(last_change_rate) BETWEEN 1 AND 32);
ALTER TABLE user_preferences ADD COLUMN last_change_inverse BOOLEAN;
ALTER TABLE user_preferences ADD COLUMN last_change_at DATETIME;
