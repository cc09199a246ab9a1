package fuel

import (
	"strings"

	"github.com/carhub/backend/pkg/apperr"
)

// Energy is what a refuel put into the vehicle. Each energy is its own
// tank: its quantity is counted in its own unit and its consumption is
// sampled over its own records only.
type Energy string

// The energies a refuel may carry.
const (
	Gasoline    Energy = "gasoline"
	Diesel      Energy = "diesel"
	LPG         Energy = "lpg"
	CNG         Energy = "cng"
	Electricity Energy = "electricity"
	Hydrogen    Energy = "hydrogen"
)

// Energies lists every energy, in the order the API documents them.
var Energies = []Energy{Gasoline, Diesel, LPG, CNG, Electricity, Hydrogen}

// The units of the quantity (the contract's liters field) per energy.
const (
	UnitLiter        = "l"
	UnitKilowattHour = "kWh"
	UnitKilogram     = "kg"
)

// Valid reports whether e is one of Energies.
func (e Energy) Valid() bool {
	switch e {
	case Gasoline, Diesel, LPG, CNG, Electricity, Hydrogen:
		return true
	}
	return false
}

// Unit is the unit of a refuel's quantity of energy e: l for liquid fuels,
// kWh for electricity, kg for compressed gases ("" for an invalid energy).
func (e Energy) Unit() string {
	switch e {
	case Gasoline, Diesel, LPG:
		return UnitLiter
	case Electricity:
		return UnitKilowattHour
	case CNG, Hydrogen:
		return UnitKilogram
	}
	return ""
}

// ParseEnergy reads an energy name, as given in field (for the error).
func ParseEnergy(field, s string) (Energy, error) {
	if e := Energy(s); e.Valid() {
		return e, nil
	}
	names := make([]string, len(Energies))
	for i, e := range Energies {
		names[i] = string(e)
	}
	return "", apperr.Invalid(field, "must be one of %s", strings.Join(names, ", "))
}

// DefaultEnergy is the energy of a refuel that names none, from its
// vehicle's fuel_type: electric cars charge electricity, diesel cars tank
// diesel, every other type (gasoline, hybrid, plug_in_hybrid) gasoline.
func DefaultEnergy(vehicleFuelType string) Energy {
	switch vehicleFuelType {
	case "diesel":
		return Diesel
	case "electric":
		return Electricity
	}
	return Gasoline
}
