package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

var _ fuel.ReminderStore = (*queries)(nil)

// reminderRow is the GORM model of the reminders table.
type reminderRow struct {
	ID               uint64 `gorm:"primaryKey"`
	VehicleID        uint64
	Title            string
	Category         string
	TitleMatch       string
	EveryKm          decimal.NullDecimal
	EveryMonths      sql.NullInt64
	LastDoneTime     sql.NullTime
	LastDoneOdometer decimal.NullDecimal
	Notes            string
	SoonKm           decimal.Decimal
	SoonDays         int
	StartOdometer    decimal.Decimal
	Revision         int
	CreatedAt        time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt        time.Time `gorm:"autoUpdateTime:false"`
}

func (reminderRow) TableName() string { return "reminders" }

// reminderColumns lists the columns of the reminders table (alias rm) in
// the order scan reads them.
func reminderColumns(d Dialect) string {
	return "rm.id, rm.vehicle_id, rm.title, rm.category, rm.title_match, rm.every_km, rm.every_months, " +
		timeColumn(d, "rm.last_done_time") + ", rm.last_done_odometer, rm.notes, rm.soon_km, rm.soon_days, rm.start_odometer, rm.revision, " +
		timeColumn(d, "rm.created_at") + ", " + timeColumn(d, "rm.updated_at")
}

// nullTimestamp scans a nullable timestamp column as timestamp does.
type nullTimestamp sql.NullTime

// Scan implements sql.Scanner.
func (t *nullTimestamp) Scan(v any) error {
	if v == nil {
		*t = nullTimestamp{}
		return nil
	}
	var ts timestamp
	if err := ts.Scan(v); err != nil {
		return err
	}
	*t = nullTimestamp{Time: time.Time(ts), Valid: true}
	return nil
}

// scan reads one row of reminderColumns, then the columns of extra.
func (r *reminderRow) scan(row interface{ Scan(...any) error }, extra ...any) error {
	return row.Scan(append([]any{&r.ID, &r.VehicleID, &r.Title, &r.Category, &r.TitleMatch, &r.EveryKm, &r.EveryMonths,
		(*nullTimestamp)(&r.LastDoneTime), &r.LastDoneOdometer, &r.Notes, &r.SoonKm, &r.SoonDays, &r.StartOdometer, &r.Revision,
		(*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt)}, extra...)...)
}

func toReminderRow(r fuel.Reminder) reminderRow {
	row := reminderRow{
		ID: r.ID, VehicleID: r.VehicleID, Title: r.Title, Category: r.Category, TitleMatch: r.Match,
		EveryKm: r.EveryKm, EveryMonths: sql.NullInt64{Int64: int64(r.EveryMonths), Valid: r.EveryMonths != 0},
		Notes: r.Notes, SoonKm: r.SoonKm, SoonDays: r.SoonDays, StartOdometer: r.StartOdometer, Revision: r.Revision,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if d := r.LastDone; d != nil {
		row.LastDoneTime = sql.NullTime{Time: d.Time, Valid: !d.Time.IsZero()}
		row.LastDoneOdometer = d.Odometer
	}
	return row
}

func (r reminderRow) toReminder() fuel.Reminder {
	out := fuel.Reminder{
		ID: r.ID, VehicleID: r.VehicleID, Title: r.Title, Category: r.Category, Match: r.TitleMatch,
		EveryKm: r.EveryKm, EveryMonths: int(r.EveryMonths.Int64),
		Notes: r.Notes, SoonKm: r.SoonKm, SoonDays: r.SoonDays, StartOdometer: r.StartOdometer, Revision: r.Revision,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	// A last_done has its time, its odometer or both (Validate refuses
	// one with neither): both NULL is none.
	if r.LastDoneTime.Valid || r.LastDoneOdometer.Valid {
		out.LastDone = &fuel.Done{Odometer: r.LastDoneOdometer}
		if r.LastDoneTime.Valid {
			out.LastDone.Time = r.LastDoneTime.Time.UTC()
		}
	}
	return out
}

// CreateReminder implements fuel.ReminderStore: the caller must own or
// edit the vehicle.
func (q *queries) CreateReminder(ctx context.Context, r *fuel.Reminder) error {
	r.Normalize()
	if r.VehicleID != 0 {
		v, err := q.refuelVehicle(ctx, q.read, r.VehicleID)
		if err != nil {
			return err
		}
		if err := q.readTopReading(ctx, q.read, &v); err != nil {
			return fmt.Errorf("create reminder: read odometer: %w", err)
		}
		r.StartOdometer = v.currentOdometer()
	}
	if err := r.Validate(); err != nil {
		return err
	}
	r.ID, r.Revision = 0, 0
	r.CreatedAt = q.now()
	r.UpdatedAt = r.CreatedAt
	row := toReminderRow(*r)
	err := q.write.WithContext(ctx).Create(&row).Error
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return fuel.ErrUnknownVehicle(r.VehicleID)
	}
	if err != nil {
		return fmt.Errorf("create reminder: %w", err)
	}
	*r = row.toReminder()
	return nil
}

// readTopReading fills in v's highest refuel reading.
func (q *queries) readTopReading(ctx context.Context, h *gorm.DB, v *vehicleRow) error {
	return h.WithContext(ctx).Raw("SELECT "+topReading(q.dialect)+" FROM vehicles v WHERE v.id = ?", v.ID).Row().Scan(&v.TopReading)
}

// reminder reads a reminder of a vehicle the caller may see, and the
// caller's role on that vehicle, as refuel does.
func (q *queries) reminder(ctx context.Context, h *gorm.DB, id uint64, lock bool) (reminderRow, fuel.Role, error) {
	var (
		row  reminderRow
		role fuel.Role
	)
	if !storable(id) {
		return row, role, fuel.ErrReminderNotFound
	}
	uid := auth.UserID(ctx)
	lockClause := q.lockClause(lock)
	if lockClause != "" {
		lockClause += " OF rm"
	}
	err := row.scan(h.WithContext(ctx).Raw("SELECT "+reminderColumns(q.dialect)+", CASE WHEN v.owner_id = ? THEN 'owner' ELSE m.role END "+
		"FROM reminders rm JOIN vehicles v ON v.id = rm.vehicle_id LEFT JOIN vehicle_members m ON m.vehicle_id = v.id AND m.user_id = ? "+
		"WHERE rm.id = ? AND (v.owner_id = ? OR m.user_id IS NOT NULL)"+lockClause,
		uid, uid, id, uid).Row(), &role)
	if errors.Is(err, sql.ErrNoRows) {
		return row, role, fuel.ErrReminderNotFound
	}
	if err != nil {
		return row, role, fmt.Errorf("get reminder %d: %w", id, err)
	}
	return row, role, nil
}

// Reminder implements fuel.ReminderStore: the reminder and its facts read
// in one snapshot.
func (q *queries) Reminder(ctx context.Context, id uint64, asOf time.Time) (fuel.Reminder, error) {
	var out fuel.Reminder
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, _, err := q.reminder(ctx, tx, id, false)
		if err != nil {
			return err
		}
		out = row.toReminder()
		facts, err := q.reminderFacts(ctx, tx, out.VehicleID, asOf)
		if err != nil {
			return err
		}
		return q.fillFacts(ctx, tx, facts, &out, asOf)
	}, q.snapshot())
	return out, err
}

// UpdateReminder implements fuel.ReminderStore.
func (q *queries) UpdateReminder(ctx context.Context, id uint64, u fuel.ReminderUpdate) (fuel.Reminder, error) {
	var out fuel.Reminder
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, role, err := q.reminder(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if !role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		r := row.toReminder()
		u.Apply(&r)
		r.Normalize()
		var moved error
		if r.VehicleID != row.VehicleID {
			moved = apperr.Invalid("vehicle_id", "cannot change: a reminder stays with its vehicle (make a new one for vehicle %d)", r.VehicleID)
		}
		if err := apperr.Join(moved, r.Validate()); err != nil {
			return err
		}
		r.Revision++
		r.UpdatedAt = q.now()
		row = toReminderRow(r)
		if err := tx.Save(&row).Error; err != nil {
			return fmt.Errorf("update reminder %d: %w", id, err)
		}
		out = row.toReminder()
		return nil
	})
	return out, err
}

// DeleteReminder implements fuel.ReminderStore: the caller must own or
// edit the reminder's vehicle.
func (q *queries) DeleteReminder(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrReminderNotFound
	}
	uid := auth.UserID(ctx)
	res := q.write.WithContext(ctx).Exec("DELETE FROM reminders WHERE id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = reminders.vehicle_id AND "+
		writableBy("v")+")", id, uid, uid)
	if res.Error != nil {
		return fmt.Errorf("delete reminder %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		// Not found, or a viewer's: say which the caller may know.
		if _, _, err := q.reminder(ctx, q.write, id, false); err != nil {
			return err
		}
		return fuel.ErrForbidden
	}
	return nil
}

// ListReminders implements fuel.ReminderStore: the reminders and the facts
// of their vehicles in one snapshot, by id.
func (q *queries) ListReminders(ctx context.Context, f fuel.ReminderFilter) ([]fuel.Reminder, error) {
	out := []fuel.Reminder{}
	if f.VehicleID != 0 && !storable(f.VehicleID) {
		return out, nil
	}
	uid := auth.UserID(ctx)
	query := "SELECT " + reminderColumns(q.dialect) + " FROM reminders rm JOIN vehicles v ON v.id = rm.vehicle_id WHERE " + visibleTo("v")
	args := []any{uid, uid}
	if f.VehicleID != 0 {
		query += " AND rm.vehicle_id = ?"
		args = append(args, f.VehicleID)
	}
	query += " ORDER BY rm.id"
	asOf := asOfOr(f.AsOf)
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rows, err := tx.Raw(query, args...).Rows()
		if err != nil {
			return err
		}
		for rows.Next() {
			var r reminderRow
			if err := r.scan(rows); err != nil {
				rows.Close()
				return err
			}
			out = append(out, r.toReminder())
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		facts := map[uint64]*vehicleFacts{}
		for i := range out {
			vf, ok := facts[out[i].VehicleID]
			if !ok {
				if vf, err = q.reminderFacts(ctx, tx, out[i].VehicleID, asOf); err != nil {
					return err
				}
				facts[out[i].VehicleID] = vf
			}
			if err := q.fillFacts(ctx, tx, vf, &out[i], asOf); err != nil {
				return err
			}
		}
		return nil
	}, q.snapshot())
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return out, nil
}

// vehicleFacts are the facts of one vehicle's reminders.
type vehicleFacts struct {
	current  decimal.Decimal
	location *time.Location
	readings []fuel.Reading
}

// fillFacts sets the reminder's Facts: its vehicle's and the newest
// matching expense as of asOf.
func (q *queries) fillFacts(ctx context.Context, h *gorm.DB, vf *vehicleFacts, r *fuel.Reminder, asOf time.Time) error {
	last, err := q.lastMatchingExpense(ctx, h, *r, asOf)
	if err != nil {
		return err
	}
	r.Facts = fuel.ReminderFacts{CurrentOdometer: vf.current, Location: vf.location, Readings: vf.readings, LastExpense: last}
	return nil
}

// asOfOr is t, or now when t is zero.
func asOfOr(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// lastMatchingExpense reads the newest expense of the reminder's vehicle
// at or before asOf that is the reminder's job (fuel.ExpenseMatches: the
// category in SQL, the title's match in Go, where lower case is
// Unicode's, not SQLite's ASCII lower()). Its odometer, when it has none,
// is the vehicle's at that time: the highest reading of the refuels and
// expenses at or before it (none: unknown). nil when no expense matches.
func (q *queries) lastMatchingExpense(ctx context.Context, h *gorm.DB, r fuel.Reminder, asOf time.Time) (*fuel.Done, error) {
	// PostgreSQL sends a query's whole result, and the match is usually
	// among the newest few of thousands: read it in pages (without match,
	// the newest is it). SQLite steps through the rows as they are read:
	// one query without LIMIT, left when the match is found
	// (BenchmarkListReminders; PostgreSQL unpaged took 18 ms, paged 2-4).
	query := "SELECT e.id, " + timeColumn(q.dialect, "e.expense_time") + ", e.odometer, e.category, e.title FROM expenses e " +
		"WHERE e.vehicle_id = ? AND e.category = ? AND e.expense_time <= ? ORDER BY e.expense_time DESC, e.id DESC"
	args := []any{r.VehicleID, r.Category, fuel.NormalizeTime(asOf)}
	page := matchPage
	switch {
	case r.Match == "":
		page = 1
	case q.dialect == SQLite:
		page = 0 // all
	}
	if page > 0 {
		query += " LIMIT ? OFFSET ?"
	}
	var found *fuel.Done
	for offset := 0; found == nil; offset += page {
		n := 0
		pageArgs := args
		if page > 0 {
			pageArgs = append(args[:len(args):len(args)], page, offset)
		}
		rows, err := h.WithContext(ctx).Raw(query, pageArgs...).Rows()
		if err != nil {
			return nil, fmt.Errorf("read the expenses of reminder %d: %w", r.ID, err)
		}
		for found == nil && rows.Next() {
			n++
			var (
				d               fuel.Done
				category, title string
			)
			if err := rows.Scan(&d.ExpenseID, (*timestamp)(&d.Time), &d.Odometer, &category, &title); err != nil {
				rows.Close()
				return nil, err
			}
			if fuel.ExpenseMatches(r.Category, r.Match, category, title) {
				d.Time = d.Time.UTC()
				found = &d
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if found != nil || page == 0 || n < page {
			break
		}
	}
	if found == nil || found.Odometer.Valid {
		return found, nil
	}
	var err error
	found.Odometer, err = q.odometerAt(ctx, h, r.VehicleID, found.Time)
	return found, err
}

// matchPage is how many expenses a page of lastMatchingExpense reads.
const matchPage = 64

// odometerAt is the highest odometer reading of the vehicle's refuels and
// expenses at or before t (not valid when there is none).
func (q *queries) odometerAt(ctx context.Context, h *gorm.DB, vehicleID uint64, t time.Time) (decimal.NullDecimal, error) {
	readings := "SELECT odometer AS o FROM refuels WHERE vehicle_id = ? AND refuel_time <= ? " +
		"UNION ALL SELECT odometer FROM expenses WHERE vehicle_id = ? AND expense_time <= ? AND odometer IS NOT NULL"
	query := "SELECT max(o) FROM (" + readings + ") x"
	if q.dialect == SQLite {
		// Decimal text does not sort as numbers: by the REAL, as topReading.
		query = "SELECT o FROM (" + readings + ") ORDER BY CAST(o AS REAL) DESC LIMIT 1"
	}
	var out decimal.NullDecimal
	t = fuel.NormalizeTime(t)
	err := h.WithContext(ctx).Raw(query, vehicleID, t, vehicleID, t).Row().Scan(&out)
	if errors.Is(err, sql.ErrNoRows) {
		return decimal.NullDecimal{}, nil
	}
	if err != nil {
		return out, fmt.Errorf("read the odometer of vehicle %d at %s: %w", vehicleID, t, err)
	}
	return out, nil
}

// reminderFacts reads, on h, what the computed fields of the reminders of
// a vehicle depend on as of asOf: its current odometer, its owner's time
// zone and its odometer readings (refuels' and expenses') within
// fuel.EstimateWindow before asOf.
func (q *queries) reminderFacts(ctx context.Context, h *gorm.DB, vehicleID uint64, asOf time.Time) (*vehicleFacts, error) {
	db := h.WithContext(ctx)
	var (
		v    vehicleRow
		zone sql.NullString
	)
	err := db.Raw("SELECT v.id, v.current_odometer, "+topReading(q.dialect)+", "+
		"(SELECT p.time_zone FROM user_preferences p WHERE p.user_id = v.owner_id) FROM vehicles v WHERE v.id = ?", vehicleID).
		Row().Scan(&v.ID, &v.CurrentOdometer, &v.TopReading, &zone)
	if err != nil {
		return nil, fmt.Errorf("read vehicle %d of reminders: %w", vehicleID, err)
	}
	vf := &vehicleFacts{current: v.currentOdometer(), location: time.UTC}
	if zone.Valid {
		// A stored zone was checked when saved; one this binary no longer
		// knows falls back to UTC rather than failing every read.
		if loc, err := time.LoadLocation(zone.String); err == nil {
			vf.location = loc
		}
	}
	asOf = fuel.NormalizeTime(asOf)
	from := asOf.Add(-fuel.EstimateWindow)
	rows, err := db.Raw("SELECT "+timeColumn(q.dialect, "refuel_time")+", odometer FROM refuels WHERE vehicle_id = ? AND refuel_time > ? AND refuel_time <= ? "+
		"UNION ALL SELECT "+timeColumn(q.dialect, "expense_time")+", odometer FROM expenses "+
		"WHERE vehicle_id = ? AND expense_time > ? AND expense_time <= ? AND odometer IS NOT NULL",
		vehicleID, from, asOf, vehicleID, from, asOf).Rows()
	if err != nil {
		return nil, fmt.Errorf("read odometer readings of vehicle %d: %w", vehicleID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r fuel.Reading
		if err := rows.Scan((*timestamp)(&r.Time), &r.Odometer); err != nil {
			return nil, err
		}
		vf.readings = append(vf.readings, r)
	}
	return vf, rows.Err()
}
