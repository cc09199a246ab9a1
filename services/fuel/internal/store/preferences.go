package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// preferenceColumns are the columns of user_preferences that hold the
// preferences, in the order of fuel.PreferencesUpdate.Fields (the column
// names are the fields' names).
const preferenceColumns = "distance_unit, volume_unit, consumption_unit, electric_consumption_unit, " +
	"gas_consumption_unit, currency, locale, time_zone, language, "

// lastChangeColumns are the columns of the last currency conversion
// (fuel.CurrencyConversion), all NULL when there is none.
var lastChangeColumns = []string{"last_change_from", "last_change_to", "last_change_rate", "last_change_inverse", "last_change_at"}

// preferenceSelect is what scanPreferences reads: preferenceColumns,
// updated_at and lastChangeColumns.
func preferenceSelect(d Dialect) string {
	return preferenceColumns + timeColumn(d, "updated_at") + ", " +
		strings.Join(lastChangeColumns[:4], ", ") + ", " + timeColumn(d, "last_change_at")
}

// scanPreferences reads preferenceSelect; NULL is "" (and no last change).
func scanPreferences(row interface{ Scan(...any) error }) (fuel.Preferences, error) {
	var (
		p          fuel.Preferences
		ns         [9]sql.NullString
		from, to   sql.NullString
		rate       sql.NullString
		inverse    sql.NullBool
		changeTime nullTimestamp
	)
	dst := []*string{&p.DistanceUnit, &p.VolumeUnit, &p.ConsumptionUnit, &p.ElectricConsumptionUnit,
		&p.GasConsumptionUnit, &p.Currency, &p.Locale, &p.TimeZone, &p.Language}
	args := make([]any, 0, len(ns)+6)
	for i := range ns {
		args = append(args, &ns[i])
	}
	args = append(args, (*timestamp)(&p.UpdatedAt), &from, &to, &rate, &inverse, &changeTime)
	if err := row.Scan(args...); err != nil {
		return fuel.Preferences{}, err
	}
	for i, n := range ns {
		*dst[i] = n.String // "" when NULL
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	if from.Valid && to.Valid && rate.Valid && inverse.Valid && changeTime.Valid {
		r, err := decimal.NewFromString(rate.String)
		if err != nil {
			return fuel.Preferences{}, fmt.Errorf("last currency change's rate %q: %w", rate.String, err)
		}
		p.LastCurrencyChange = &fuel.CurrencyConversion{From: from.String, To: to.String, Rate: r,
			Inverse: inverse.Bool, At: changeTime.Time.UTC()}
	}
	return p, nil
}

// Preferences implements fuel.Store: the caller's row, or none chosen.
func (q *queries) Preferences(ctx context.Context) (fuel.Preferences, error) {
	p, err := scanPreferences(q.read.WithContext(ctx).Raw("SELECT "+preferenceSelect(q.dialect)+
		" FROM user_preferences WHERE user_id = ?", auth.UserID(ctx)).Row())
	if errors.Is(err, sql.ErrNoRows) {
		return fuel.Preferences{}, nil
	}
	if err != nil {
		return fuel.Preferences{}, fmt.Errorf("get preferences: %w", err)
	}
	return p, nil
}

// UpdatePreferences implements fuel.Store. The patch is one statement
// that names only the columns u sets: it inserts the caller's row or
// updates those columns of it, so two concurrent patches of different
// fields both land (PostgreSQL locks the row for the second; SQLite runs
// writes one at a time), which a read, a merge in Go and a write would not
// guarantee.
func (q *queries) UpdatePreferences(ctx context.Context, u fuel.PreferencesUpdate) (fuel.Preferences, error) {
	if err := u.Normalize(); err != nil {
		return fuel.Preferences{}, err
	}
	uid := auth.UserID(ctx)
	cols, marks, sets := []string{"user_id"}, []string{"?"}, []string{}
	args := []any{uid}
	for _, f := range u.Fields() {
		if f.Value == nil {
			continue
		}
		var v any // NULL clears the preference
		if *f.Value != "" {
			v = *f.Value
		}
		cols, marks = append(cols, f.Name), append(marks, "?")
		sets = append(sets, f.Name+" = excluded."+f.Name)
		args = append(args, v)
		if f.Name == "currency" {
			// A currency set other than by a conversion leaves nothing to undo.
			for _, c := range lastChangeColumns {
				sets = append(sets, c+" = CASE WHEN user_preferences.currency = excluded.currency THEN user_preferences."+c+" END")
			}
		}
	}
	cols, marks = append(cols, "updated_at"), append(marks, "?")
	sets = append(sets, "updated_at = excluded.updated_at")
	args = append(args, q.now())
	stmt := "INSERT INTO user_preferences (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")" +
		" ON CONFLICT (user_id) DO UPDATE SET " + strings.Join(sets, ", ") +
		" RETURNING " + preferenceSelect(q.dialect)
	p, err := scanPreferences(q.write.WithContext(ctx).Raw(stmt, args...).Row())
	if err != nil {
		// The only row it may refer to is the user's: a failed foreign key
		// means the user was deleted after the request was authenticated
		// (the drivers report it differently; the users table tells).
		var n int64
		if cerr := q.write.WithContext(ctx).Raw("SELECT count(*) FROM users WHERE id = ?", uid).Row().Scan(&n); cerr == nil && n == 0 {
			return fuel.Preferences{}, fuel.ErrUserGone
		}
		return fuel.Preferences{}, fmt.Errorf("update preferences: %w", err)
	}
	return p, nil
}
