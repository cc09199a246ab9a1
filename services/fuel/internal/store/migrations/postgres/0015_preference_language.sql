-- The language of the client's words, apart from the locale of its numbers
-- and dates (proto-docs/web-decisions.md, "One language per screen"): NULL
-- until the owner saves it. The values are checked by fuel.ParsePreference
-- (en, de, zh today); the column only bounds them, so a new language needs
-- no migration.
ALTER TABLE user_preferences ADD COLUMN language text CHECK (length(language) BETWEEN 2 AND 16);
