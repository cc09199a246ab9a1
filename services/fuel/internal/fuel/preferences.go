package fuel

import (
	"strings"
	"time"
	// The zone database ships inside the binary (see ParseTimeZone).
	_ "time/tzdata"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
)

// The allowed values of the unit preferences. The API's own quantities
// stay metric whatever they say: they tell a client how to show them.
var (
	DistanceUnits            = []string{"km", "mi"}
	VolumeUnits              = []string{"l", "gal_us", "gal_uk"}
	ConsumptionUnits         = []string{"l_per_100km", "km_per_l", "mpg_us", "mpg_uk"}
	ElectricConsumptionUnits = []string{"kwh_per_100km", "km_per_kwh", "mi_per_kwh"}
	GasConsumptionUnits      = []string{"kg_per_100km", "km_per_kg"}
	// Languages are those the web client speaks: the language of its words,
	// apart from the locale of its numbers and dates.
	Languages = []string{"en", "de", "zh"}
)

// Bounds of the free-form preferences: the longest IANA zone name has 32
// characters; a BCP 47 tag with a few -u- extensions stays well under 128.
const (
	MaxZoneNameLen = 64
	MaxLocaleLen   = 128
)

// ErrUserGone is the error of a preferences write for a user deleted
// since the request was authenticated.
var ErrUserGone = apperr.New(apperr.Unauthorized, "the account no longer exists")

// Preferences are a user's choices of units, currency, language and time
// zone. "" means not chosen yet (null in the API): the client picks its
// defaults then. UpdatedAt is zero until the first write.
type Preferences struct {
	DistanceUnit            string
	VolumeUnit              string
	ConsumptionUnit         string
	ElectricConsumptionUnit string
	GasConsumptionUnit      string
	// Currency is an ISO 4217 code in upper case.
	Currency string
	// Locale is a BCP 47 tag in the canonical form of x/text (zh-Hans-CN).
	Locale string
	// TimeZone is an IANA zone name; the default zone of the monthly
	// series and of the CSV import.
	TimeZone string
	// Language is the language of the client's words (one of Languages);
	// Locale says how it writes numbers and dates (English words with
	// de-DE's 1.234,5).
	Language  string
	UpdatedAt time.Time
	// LastCurrencyChange is the last conversion of the home currency, nil
	// when there is none to undo. It is written only by a currency change.
	LastCurrencyChange *CurrencyConversion
}

// PreferencesUpdate is a patch: a nil field is left unchanged, a pointer
// to "" clears it (not chosen).
type PreferencesUpdate struct {
	DistanceUnit            *string
	VolumeUnit              *string
	ConsumptionUnit         *string
	ElectricConsumptionUnit *string
	GasConsumptionUnit      *string
	Currency                *string
	Locale                  *string
	TimeZone                *string
	Language                *string
}

// PreferenceField is one field of a PreferencesUpdate with its API (and
// column) name.
type PreferenceField struct {
	Name  string
	Value *string
}

// Fields returns the fields of u in table order, set or not.
func (u *PreferencesUpdate) Fields() []PreferenceField {
	return []PreferenceField{
		{"distance_unit", u.DistanceUnit},
		{"volume_unit", u.VolumeUnit},
		{"consumption_unit", u.ConsumptionUnit},
		{"electric_consumption_unit", u.ElectricConsumptionUnit},
		{"gas_consumption_unit", u.GasConsumptionUnit},
		{"currency", u.Currency},
		{"locale", u.Locale},
		{"time_zone", u.TimeZone},
		{"language", u.Language},
	}
}

// Normalize checks every field that sets a value and rewrites it in its
// canonical form (ParsePreference); the error names every bad field, in
// table order. Nothing is changed when it fails.
func (u *PreferencesUpdate) Normalize() error {
	fields := u.Fields()
	canon := make([]string, len(fields))
	var errs []error
	for i, f := range fields {
		if f.Value == nil || *f.Value == "" {
			continue
		}
		v, err := ParsePreference(f.Name, *f.Value)
		errs = append(errs, err)
		canon[i] = v
	}
	if err := apperr.Join(errs...); err != nil {
		return err
	}
	for i, f := range fields {
		if canon[i] != "" {
			*f.Value = canon[i]
		}
	}
	return nil
}

// ParsePreference checks the value of the preference named field and
// returns it in canonical form: units exactly as listed, the currency in
// upper case, the locale as x/text writes the tag, the time zone as
// given. "" is refused: clearing is the caller's null.
func ParsePreference(field, value string) (string, error) {
	switch field {
	case "distance_unit":
		return oneOf(field, value, DistanceUnits)
	case "volume_unit":
		return oneOf(field, value, VolumeUnits)
	case "consumption_unit":
		return oneOf(field, value, ConsumptionUnits)
	case "electric_consumption_unit":
		return oneOf(field, value, ElectricConsumptionUnits)
	case "gas_consumption_unit":
		return oneOf(field, value, GasConsumptionUnits)
	case "currency":
		return ParseCurrency(field, value)
	case "locale":
		return ParseLocale(field, value)
	case "time_zone":
		if _, err := ParseTimeZone(field, value); err != nil {
			return "", err
		}
		return value, nil
	case "language":
		return oneOf(field, value, Languages)
	}
	return "", apperr.Invalid(field, "is not a preference")
}

func oneOf(field, value string, allowed []string) (string, error) {
	for _, a := range allowed {
		if value == a {
			return value, nil
		}
	}
	return "", apperr.Invalid(field, "must be one of %s", strings.Join(allowed, ", "))
}

// ParseCurrency reads an ISO 4217 code in any case (usd) and returns it in
// upper case (USD). Codes x/text does not know (ABC) are refused; the
// historical and special codes it knows (DEM, XXX) are accepted.
func ParseCurrency(field, value string) (string, error) {
	u, err := currency.ParseISO(value)
	if err != nil {
		return "", apperr.Invalid(field, "%q is not an ISO 4217 currency code (like EUR or USD)", value)
	}
	return u.String(), nil
}

// ParseLocale reads a BCP 47 language tag (en-us, zh_Hans_CN) and returns
// its canonical form (en-US, zh-Hans-CN; deprecated subtags replaced:
// iw is he). A tag must name its language: und and private-use tags
// alone (x-foo) are refused.
func ParseLocale(field, value string) (string, error) {
	const hint = "must be a BCP 47 language tag naming a language, like en-US or zh-Hans-CN"
	if len(value) > MaxLocaleLen {
		return "", apperr.Invalid(field, "%s (at most %d characters)", hint, MaxLocaleLen)
	}
	tag, err := language.Parse(value)
	if err != nil {
		return "", apperr.Invalid(field, "%s; %q is not one", hint, value)
	}
	if _, c := tag.Base(); c != language.Exact {
		return "", apperr.Invalid(field, "%s; %q names none", hint, value)
	}
	s := tag.String()
	if len(s) > MaxLocaleLen {
		return "", apperr.Invalid(field, "%s (at most %d characters)", hint, MaxLocaleLen)
	}
	return s, nil
}

// ParseTimeZone reads an IANA time zone name (Europe/Berlin,
// Asia/Shanghai, UTC). "Local" and "" are refused: the host's zone is not
// the owner's. The zone database is compiled in (time/tzdata), so a host
// without /usr/share/zoneinfo still knows every zone.
func ParseTimeZone(field, name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > MaxZoneNameLen {
		return nil, apperr.Invalid(field, "must be an IANA time zone name, like Europe/Berlin or UTC")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, apperr.Invalid(field, "%q is not an IANA time zone name (like Europe/Berlin or UTC)", name)
	}
	return loc, nil
}
