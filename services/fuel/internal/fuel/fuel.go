// Package fuel holds the nouns of the fuel service: vehicles, refuel
// records and their statistics, the rules every value must obey (Validate),
// the errors the service answers with, and the Store interface that the
// database layer implements.
package fuel

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/shopspring/decimal"
)

// Bounds of the field tables and of the storage (numeric(14,3) for
// quantities, numeric(18,4) for unit prices). Quantities are rounded
// half-up to QuantityScale places before they are validated or stored.
const (
	MaxNameLen        = 64
	MaxBrandLen       = 64
	MaxModelLen       = 64
	MaxPlateLen       = 32
	MaxRefuelFuelLen  = 32
	MaxStationNameLen = 128
	MaxRemarkLen      = 512

	QuantityScale = 3 // liters, km, money
	PriceScale    = 4 // price_per_liter and averages
)

var (
	// MaxQuantity is the largest liters, odometer, amount or capacity value
	// the storage holds: 99 999 999 999.999.
	MaxQuantity = decimal.RequireFromString("99999999999.999")

	// MinTime and MaxTime bound refuel_time: no car was refuelled before
	// 1900, and RFC 3339 ends with the year 9999.
	MinTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
)

// VehicleFuelTypes are the allowed values of Vehicle.FuelType.
var VehicleFuelTypes = []string{"gasoline", "diesel", "hybrid", "electric", "plug_in_hybrid"}

// Errors with a fixed meaning. Handlers render them through apperr.
var (
	ErrVehicleNotFound = apperr.New(apperr.NotFound, "vehicle not found")
	ErrRefuelNotFound  = apperr.New(apperr.NotFound, "refuel record not found")
	ErrMemberNotFound  = apperr.New(apperr.NotFound, "member not found")
	// ErrForbidden is the error for a write to a vehicle the caller may
	// see but not change: a viewer writing, an editor changing the vehicle.
	// A vehicle the caller may not see is not found instead.
	ErrForbidden = apperr.New(apperr.Forbidden, "not allowed on this vehicle")
)

// Role is what a user may do with a vehicle.
type Role string

// The roles: the owner does everything; an editor reads and writes the
// refuels; a viewer reads.
const (
	RoleOwner  Role = "owner"
	RoleEditor Role = "editor"
	RoleViewer Role = "viewer"
)

// CanWriteRecords reports whether the role may create, change and delete
// the vehicle's records: refuels, expenses, reminders and their
// attachments (a viewer reads them only).
func (r Role) CanWriteRecords() bool { return r == RoleOwner || r == RoleEditor }

// ParseMemberRole reads the role of a member: viewer or editor.
func ParseMemberRole(field, s string) (Role, error) {
	switch Role(s) {
	case RoleViewer, RoleEditor:
		return Role(s), nil
	}
	return "", apperr.Invalid(field, "must be one of viewer, editor")
}

// Member is a user a vehicle is shared with.
type Member struct {
	UserID    uint64
	Username  string
	Role      Role
	CreatedAt time.Time
}

// ErrUnknownVehicle is the error for a refuel that names a vehicle that does
// not exist: the request is wrong, not the addressed resource.
func ErrUnknownVehicle(id uint64) error {
	return apperr.Invalid("vehicle_id", "vehicle %d does not exist", id)
}

// Vehicle is a car (or any vehicle) whose refuels are logged.
type Vehicle struct {
	ID              uint64
	Name            string
	Brand           string
	Model           string
	PlateNumber     string
	FuelType        string
	TankCapacity    decimal.Decimal
	CurrentOdometer decimal.Decimal
	// DefaultVehicle is the owner's default; false for a member.
	DefaultVehicle bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// OwnerID is the user who owns the vehicle, and Role what the user
	// who read it may do (set by the store's reads).
	OwnerID uint64
	Role    Role
	// Currency is the owner's home currency (ISO 4217; "" when not
	// chosen): the currency of the vehicle's amounts, for every member.
	Currency string
	// ManualMD5s are the docqa documents (their fileMd5) that are this
	// vehicle's manuals, in the owner's order; never nil once read.
	ManualMD5s []string
}

// Normalize rounds the quantities to the stored scale, so that what a write
// answers is what a later read returns.
func (v *Vehicle) Normalize() {
	v.TankCapacity = RoundQuantity(v.TankCapacity)
	v.CurrentOdometer = RoundQuantity(v.CurrentOdometer)
}

// Validate reports every field that breaks a rule of the field table, in
// the table's order, as one INVALID_ARGUMENT error naming each
// (apperr.Join).
func (v *Vehicle) Validate() error { return apperr.Join(v.ValidateFields(everyField)...) }

// ValidateFields is Validate restricted to the members known reports, by
// their JSON names, as Expense.ValidateFields: every rule of a vehicle
// reads one member.
func (v *Vehicle) ValidateFields(known func(field string) bool) []error {
	var errs []error
	check := func(field string, err error) {
		if known(field) {
			errs = append(errs, err)
		}
	}
	check("name", requiredString("name", v.Name, MaxNameLen))
	check("brand", optionalString("brand", v.Brand, MaxBrandLen))
	check("model", optionalString("model", v.Model, MaxModelLen))
	check("plate_number", optionalString("plate_number", v.PlateNumber, MaxPlateLen))
	check("fuel_type", vehicleFuelType(v.FuelType))
	check("tank_capacity", quantity("tank_capacity", v.TankCapacity, false))
	check("current_odometer", quantity("current_odometer", v.CurrentOdometer, false))
	check("manual_md5s", manualMD5s(v.ManualMD5s))
	return errs
}

func vehicleFuelType(f string) error {
	switch {
	case isVehicleFuelType(f):
		return nil
	case strings.TrimSpace(f) == "":
		return apperr.Invalid("fuel_type", "is required")
	}
	return apperr.Invalid("fuel_type", "must be one of %s", strings.Join(VehicleFuelTypes, ", "))
}

// VehicleUpdate is a patch: nil fields are left unchanged.
type VehicleUpdate struct {
	Name            *string
	Brand           *string
	Model           *string
	PlateNumber     *string
	FuelType        *string
	TankCapacity    *decimal.Decimal
	CurrentOdometer *decimal.Decimal
	DefaultVehicle  *bool
	ManualMD5s      *[]string
}

// Sets reports whether u changes the member field (a JSON member name).
func (u VehicleUpdate) Sets(field string) bool {
	switch field {
	case "name":
		return u.Name != nil
	case "brand":
		return u.Brand != nil
	case "model":
		return u.Model != nil
	case "plate_number":
		return u.PlateNumber != nil
	case "fuel_type":
		return u.FuelType != nil
	case "tank_capacity":
		return u.TankCapacity != nil
	case "current_odometer":
		return u.CurrentOdometer != nil
	case "default_vehicle":
		return u.DefaultVehicle != nil
	case "manual_md5s":
		return u.ManualMD5s != nil
	}
	return false
}

// Apply copies the set fields of u onto v.
func (u VehicleUpdate) Apply(v *Vehicle) {
	set(&v.Name, u.Name)
	set(&v.Brand, u.Brand)
	set(&v.Model, u.Model)
	set(&v.PlateNumber, u.PlateNumber)
	set(&v.FuelType, u.FuelType)
	set(&v.TankCapacity, u.TankCapacity)
	set(&v.CurrentOdometer, u.CurrentOdometer)
	set(&v.DefaultVehicle, u.DefaultVehicle)
	set(&v.ManualMD5s, u.ManualMD5s)
}

// Refuel is one refuel record of a vehicle.
type Refuel struct {
	ID         uint64
	VehicleID  uint64
	RefuelTime time.Time
	Odometer   decimal.Decimal
	FuelType   string
	// Energy is what was put in; "" on create and update means the
	// vehicle's DefaultEnergy, which the store fills in.
	Energy Energy
	// Liters is the quantity in Energy's unit (l, kWh or kg): the
	// contract's name, kept.
	Liters      decimal.Decimal
	TotalAmount decimal.Decimal
	// PricePerLiter is the price per unit of Energy.
	PricePerLiter decimal.Decimal
	StationName   string
	IsFull        bool
	// MissedPrevious says the owner did not log one or more fill-ups
	// before this one: the span it closes yields no sample.
	MissedPrevious bool
	Remark         string
	// Currency is the ISO 4217 code the record was paid in when that is
	// not the home currency of the vehicle's owner; "" for the home
	// currency. TotalAmount and PricePerLiter are in this currency.
	Currency string
	// HomeAmount is what the owner was charged for the record in the home
	// currency; valid exactly when Currency is set.
	HomeAmount decimal.NullDecimal
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// HomeTotal is the record's amount in the home currency, the one the
// statistics count: HomeAmount when it was paid in another currency,
// else TotalAmount.
func (r *Refuel) HomeTotal() decimal.Decimal {
	if r.Currency != "" && r.HomeAmount.Valid {
		return r.HomeAmount.Decimal
	}
	return r.TotalAmount
}

// Normalize rounds quantities to the stored scale, brings RefuelTime to UTC
// at microsecond precision and computes PricePerLiter from the rounded
// values (when Liters is positive; Validate rejects the rest).
func (r *Refuel) Normalize() {
	r.RefuelTime = NormalizeTime(r.RefuelTime)
	r.Odometer = RoundQuantity(r.Odometer)
	r.Liters = RoundQuantity(r.Liters)
	r.TotalAmount = RoundQuantity(r.TotalAmount)
	if r.HomeAmount.Valid {
		r.HomeAmount.Decimal = RoundQuantity(r.HomeAmount.Decimal)
	}
	r.PricePerLiter = decimal.Zero
	if r.Liters.IsPositive() {
		r.PricePerLiter = r.TotalAmount.DivRound(r.Liters, PriceScale)
	}
}

// Validate reports every field that breaks a rule of the field table, as
// Vehicle.Validate does.
func (r *Refuel) Validate() error { return apperr.Join(r.validateFields(everyField, false)...) }

// ValidateFields is Validate restricted to the members known reports, as
// Expense.ValidateFields, for a body before the store completes its
// record: an energy "" is the vehicle's default, which the store fills
// in, and is not checked here. The rules that read more than the record
// (currency and home_amount against the owner's home currency, the
// odometer against the vehicle's other readings) are the store's.
func (r *Refuel) ValidateFields(known func(field string) bool) []error {
	return r.validateFields(known, true)
}

func (r *Refuel) validateFields(known func(string) bool, defaultEnergy bool) []error {
	var errs []error
	check := func(field string, err error) {
		if known(field) {
			errs = append(errs, err)
		}
	}
	check("vehicle_id", refuelVehicleID(r.VehicleID))
	check("refuel_time", refuelTime(r.RefuelTime))
	check("odometer", quantity("odometer", r.Odometer, false))
	check("fuel_type", requiredString("fuel_type", r.FuelType, MaxRefuelFuelLen))
	if !defaultEnergy || r.Energy != "" {
		_, err := ParseEnergy("energy", string(r.Energy))
		check("energy", err)
	}
	check("liters", quantity("liters", r.Liters, true))
	check("total_amount", quantity("total_amount", r.TotalAmount, false))
	check("station_name", optionalString("station_name", r.StationName, MaxStationNameLen))
	check("remark", optionalString("remark", r.Remark, MaxRemarkLen))
	return errs
}

func refuelVehicleID(id uint64) error {
	if id == 0 {
		return apperr.Invalid("vehicle_id", "is required and must be at least 1")
	}
	return nil
}

func refuelTime(t time.Time) error {
	switch {
	case t.IsZero():
		return apperr.Invalid("refuel_time", "is required")
	case t.Before(MinTime) || t.After(MaxTime):
		return apperr.Invalid("refuel_time", "must lie between 1900-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z")
	}
	return nil
}

// RefuelUpdate is a patch: nil fields are left unchanged.
type RefuelUpdate struct {
	VehicleID      *uint64
	RefuelTime     *time.Time
	Odometer       *decimal.Decimal
	FuelType       *string
	Energy         *Energy // "" resets to the vehicle's default
	Liters         *decimal.Decimal
	TotalAmount    *decimal.Decimal
	StationName    *string
	IsFull         *bool
	MissedPrevious *bool
	Remark         *string
	// Currency "" is the home currency; set to "" without HomeAmount, it
	// also clears the home amount.
	Currency   *string
	HomeAmount *decimal.NullDecimal
}

// Sets reports whether u changes the member field (a JSON member name).
func (u RefuelUpdate) Sets(field string) bool {
	switch field {
	case "vehicle_id":
		return u.VehicleID != nil
	case "refuel_time":
		return u.RefuelTime != nil
	case "odometer":
		return u.Odometer != nil
	case "fuel_type":
		return u.FuelType != nil
	case "energy":
		return u.Energy != nil
	case "liters":
		return u.Liters != nil
	case "total_amount":
		return u.TotalAmount != nil
	case "station_name":
		return u.StationName != nil
	case "is_full":
		return u.IsFull != nil
	case "missed_previous":
		return u.MissedPrevious != nil
	case "remark":
		return u.Remark != nil
	case "currency":
		return u.Currency != nil
	case "home_amount":
		return u.HomeAmount != nil
	}
	return false
}

// Apply copies the set fields of u onto r.
func (u RefuelUpdate) Apply(r *Refuel) {
	set(&r.VehicleID, u.VehicleID)
	set(&r.RefuelTime, u.RefuelTime)
	set(&r.Odometer, u.Odometer)
	set(&r.FuelType, u.FuelType)
	set(&r.Energy, u.Energy)
	set(&r.Liters, u.Liters)
	set(&r.TotalAmount, u.TotalAmount)
	set(&r.StationName, u.StationName)
	set(&r.IsFull, u.IsFull)
	set(&r.MissedPrevious, u.MissedPrevious)
	set(&r.Remark, u.Remark)
	set(&r.Currency, u.Currency)
	set(&r.HomeAmount, u.HomeAmount)
	if u.Currency != nil && *u.Currency == "" && u.HomeAmount == nil {
		r.HomeAmount = decimal.NullDecimal{}
	}
}

// RefuelFilter selects the refuels of GET /api/refuels. Start and End are
// inclusive; nil means unbounded. Limit 0 means all.
type RefuelFilter struct {
	VehicleID uint64
	Start     *time.Time
	End       *time.Time
	Limit     int
	Offset    int
}

// Store is the service's whole database, as one interface composed of one
// store per kind of record (VehicleStore, RefuelStore, ExpenseStore,
// ReminderStore, AttachmentStore, PreferenceStore), plus what spans them:
// Once, which runs a create and keeps its answer in one transaction, and
// Ping. Every method takes the request context and acts for the user it
// carries (auth.UserID): it sees the vehicles the user owns or is a member
// of, and their records; reads need any role, record writes owner or
// editor (Role.CanWriteRecords), vehicle changes the owner. Methods return
// the kind's not-found error (ErrVehicleNotFound, ErrRefuelNotFound, ...)
// for an absent id or one the user may not see, ErrUnknownVehicle for a
// record naming such a vehicle, ErrForbidden for a write the user's role
// does not allow, the error of Validate for an invalid value (nothing is
// written then), and other errors only for failures of the database.
type Store interface {
	VehicleStore
	RefuelStore
	ExpenseStore    // expenses.go
	ReminderStore   // reminders.go
	AttachmentStore // attachments.go
	PreferenceStore

	// Once runs create at most once per idempotency key: the first call
	// with k runs create in a transaction and stores its answer with k in
	// the same transaction; a later call with the same key, method and path
	// within IdempotencyTTL returns the stored answer (replayed true) and
	// runs nothing, or INVALID_ARGUMENT when its RequestHash differs. create
	// must do its writes through the Store it is given. An error of create
	// stores nothing.
	Once(ctx context.Context, k IdempotencyKey, create func(tx Store) (StoredAnswer, error)) (a StoredAnswer, replayed bool, err error)

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
}

// VehicleStore keeps vehicles, with Store's rules: vehicle changes need
// the owner.
type VehicleStore interface {
	// ListVehicles returns the user's vehicles, the user's default first,
	// then by id.
	ListVehicles(ctx context.Context) ([]Vehicle, error)
	// CreateVehicle validates v, stores it (clearing any previous default
	// when v is the default) and fills in its id and timestamps.
	CreateVehicle(ctx context.Context, v *Vehicle) error
	Vehicle(ctx context.Context, id uint64) (Vehicle, error)
	// UpdateVehicle applies u to the stored vehicle, validates the result and
	// stores it in one transaction.
	UpdateVehicle(ctx context.Context, id uint64, u VehicleUpdate) (Vehicle, error)
	// DeleteVehicle deletes the vehicle, its refuels and its expenses.
	DeleteVehicle(ctx context.Context, id uint64) error
	// SetDefaultVehicle makes the vehicle the only default of its owner.
	SetDefaultVehicle(ctx context.Context, id uint64) (Vehicle, error)
}

// RefuelStore keeps refuels and computes their statistics, with Store's
// rules.
type RefuelStore interface {
	// CreateRefuel fills in r's energy when it names none (the vehicle's
	// DefaultEnergy), validates r and stores it.
	CreateRefuel(ctx context.Context, r *Refuel) error
	Refuel(ctx context.Context, id uint64) (Refuel, error)
	// UpdateRefuel applies u in one transaction; an energy reset to ""
	// becomes the default of the record's (possibly new) vehicle.
	UpdateRefuel(ctx context.Context, id uint64, u RefuelUpdate) (Refuel, error)
	DeleteRefuel(ctx context.Context, id uint64) error
	// ListRefuels returns the refuels matching f, newest first (refuel_time
	// descending, then id descending). An unknown vehicle has none.
	ListRefuels(ctx context.Context, f RefuelFilter) ([]Refuel, error)
	// Statistics computes the statistics of a vehicle; ErrVehicleNotFound
	// when it does not exist.
	Statistics(ctx context.Context, vehicleID uint64) (Statistics, error)

	// MonthlyStatistics returns the monthly series of one energy of a
	// vehicle (see MonthlyQuery); ErrVehicleNotFound when it does not exist.
	MonthlyStatistics(ctx context.Context, vehicleID uint64, q MonthlyQuery) (MonthlySeries, error)
	// ExportRefuels calls fn with every refuel of the vehicle in
	// (refuel_time, id) order without holding them all in memory;
	// ErrVehicleNotFound when it does not exist. An error of fn ends the
	// export and is returned.
	ExportRefuels(ctx context.Context, vehicleID uint64, fn func(Refuel) error) error
	// ImportRefuels stores rs (normalized and valid) for the vehicle in one
	// transaction, skipping each record equal to one stored before the
	// import (same refuel_time, energy, odometer, liters and total_amount). With
	// dryRun nothing is stored. ErrVehicleNotFound when the vehicle does
	// not exist.
	ImportRefuels(ctx context.Context, vehicleID uint64, rs []Refuel, dryRun bool) (ImportResult, error)
}

// PreferenceStore keeps the caller's own preferences, and changes the
// home currency of the caller's records with them.
type PreferenceStore interface {
	// Preferences returns the user's preferences; every field "" and
	// UpdatedAt zero for a user who never saved any.
	Preferences(ctx context.Context) (Preferences, error)
	// UpdatePreferences normalizes u (the error of Normalize names the bad
	// field; nothing is written then) and writes the fields it sets, in one
	// statement, so that concurrent patches of different fields all hold.
	// It sets UpdatedAt and returns the whole preferences; ErrUserGone when
	// the user no longer exists.
	UpdatePreferences(ctx context.Context, u PreferencesUpdate) (Preferences, error)
	// ChangeCurrency changes the caller's home currency as c says, in one
	// transaction: the records of every vehicle the caller owns (shared
	// ones included, none the caller is only a member of) and the
	// currency preference, all or nothing. ErrCurrencyChanged when the
	// stored currency is set and is not c.From.
	ChangeCurrency(ctx context.Context, c CurrencyChange) (CurrencyChangeResult, error)
}

// IdempotencyTTL is how long a stored answer is replayed.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyKey identifies a request that may be repeated: the client's
// key scoped to the method and path, and the SHA-256 (hex) of its body.
type IdempotencyKey struct {
	Key, Method, Path string
	RequestHash       string
}

// StoredAnswer is the answer of a request made with an idempotency key.
type StoredAnswer struct {
	Status int
	Body   []byte
}

// ImportResult counts what an import stored and what it skipped as equal
// to a record already stored.
type ImportResult struct {
	Imported int
	Skipped  int
}

// RoundQuantity rounds d half-up to QuantityScale places. A value with no
// more places is returned as it is: Round would rescale it (big.Int
// arithmetic, two allocations) to the same value.
func RoundQuantity(d decimal.Decimal) decimal.Decimal {
	if d.Exponent() >= -QuantityScale {
		return d
	}
	return d.Round(QuantityScale)
}

// NormalizeTime returns t in UTC truncated to microseconds, the precision
// both databases keep.
func NormalizeTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

func isVehicleFuelType(s string) bool {
	for _, t := range VehicleFuelTypes {
		if s == t {
			return true
		}
	}
	return false
}

func requiredString(field, s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return apperr.Invalid(field, "is required and must not be blank")
	}
	return optionalString(field, s, max)
}

func optionalString(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return apperr.Invalid(field, "must be valid UTF-8")
	}
	if strings.ContainsRune(s, 0) {
		return apperr.Invalid(field, "must not contain NUL characters")
	}
	if n := utf8.RuneCountInString(s); n > max {
		return apperr.Invalid(field, "must be at most %d characters (got %d)", max, n)
	}
	return nil
}

func quantity(field string, d decimal.Decimal, positive bool) error {
	switch {
	case positive && !d.IsPositive():
		return apperr.Invalid(field, "must be greater than 0 (at %d decimal places)", QuantityScale)
	case d.IsNegative():
		return apperr.Invalid(field, "must be at least 0")
	case d.GreaterThan(MaxQuantity):
		return apperr.Invalid(field, "must be at most %s", MaxQuantity.String())
	}
	return nil
}
