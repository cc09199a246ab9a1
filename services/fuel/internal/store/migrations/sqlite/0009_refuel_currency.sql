-- A refuel paid in another currency (see the PostgreSQL migration of the
-- same version). SQLite cannot add a table CHECK with ALTER TABLE: the
-- rule that currency and home_amount go together is a column CHECK of
-- home_amount, which may name the other column of its row. home_amount is
-- exact decimal text, as total_amount is.
ALTER TABLE refuels ADD COLUMN currency TEXT CHECK (length(currency) = 3 AND currency = upper(currency));
ALTER TABLE refuels ADD COLUMN home_amount TEXT
    CHECK ((currency IS NULL) = (home_amount IS NULL)
           AND (home_amount IS NULL OR (typeof(home_amount) = 'text' AND home_amount NOT GLOB '*[^0-9.]*'
                                        AND CAST(home_amount AS REAL) < 1e11)));
