package csvfile

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

// Units of the files read.
var (
	volumeUnits = map[string]decimal.Decimal{
		"l":      decimal.NewFromInt(1),
		"gal_us": decimal.RequireFromString("3.785411784"), // exact by definition
		"gal_uk": decimal.RequireFromString("4.54609"),     // exact by definition
	}
	distanceUnits = map[string]decimal.Decimal{
		"km": decimal.NewFromInt(1),
		"mi": decimal.RequireFromString("1.609344"), // exact by definition
	}
)

// VolumeUnits, DistanceUnits and DateFormats list the accepted names of
// the import options volume_unit, distance_unit and date_format.
var (
	VolumeUnits   = []string{"l", "gal_us", "gal_uk"}
	DistanceUnits = []string{"km", "mi"}
	DateFormats   = []string{"mdy", "dmy", "ymd"}
)

// VolumeFactor is the factor from unit (l, gal_us, gal_uk) to liters;
// false for another unit.
func VolumeFactor(unit string) (decimal.Decimal, bool) {
	f, ok := volumeUnits[unit]
	return f, ok
}

// DistanceFactor is the factor from unit (km, mi) to kilometres; false for
// another unit.
func DistanceFactor(unit string) (decimal.Decimal, bool) {
	f, ok := distanceUnits[unit]
	return f, ok
}

// CheckVolumeUnit, CheckDistanceUnit and CheckDateFormat refuse an
// unknown value of the import option they name; "" (the default) is
// always accepted.
func CheckVolumeUnit(u string) error {
	if _, ok := volumeUnits[u]; u != "" && !ok {
		return apperr.Invalid("volume_unit", "must be one of %s", strings.Join(VolumeUnits, ", "))
	}
	return nil
}

func CheckDistanceUnit(u string) error {
	if _, ok := distanceUnits[u]; u != "" && !ok {
		return apperr.Invalid("distance_unit", "must be one of %s", strings.Join(DistanceUnits, ", "))
	}
	return nil
}

func CheckDateFormat(f string) error {
	if f != "" && f != "mdy" && f != "dmy" && f != "ymd" {
		return apperr.Invalid("date_format", "must be one of %s", strings.Join(DateFormats, ", "))
	}
	return nil
}
