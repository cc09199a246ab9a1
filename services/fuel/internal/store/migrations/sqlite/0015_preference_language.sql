-- The language of the client's words (see the PostgreSQL migration of the
-- same version).
ALTER TABLE user_preferences ADD COLUMN language TEXT CHECK (length(language) BETWEEN 2 AND 16);
