-- A refuel paid in another currency than its owner's home currency
-- (proto-docs/fuel-decisions.md, "Currency"): currency is that ISO 4217
-- code, NULL for the home currency (every existing record); home_amount
-- is what the owner's card was charged for it in the home currency, the
-- amount the statistics count. The two go together.
ALTER TABLE refuels ADD COLUMN currency varchar(3) CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE refuels ADD COLUMN home_amount numeric(14,3) CHECK (home_amount >= 0);
ALTER TABLE refuels ADD CONSTRAINT refuels_currency_home_amount
    CHECK ((currency IS NULL) = (home_amount IS NULL));
