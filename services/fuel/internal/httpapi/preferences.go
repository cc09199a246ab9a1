package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// preferencesRequest is the body of PUT /api/preferences: a patch. An
// absent member is left unchanged, null clears it; updated_at and unknown
// members are ignored.
type preferencesRequest struct {
	DistanceUnit            optString `json:"distance_unit"`
	VolumeUnit              optString `json:"volume_unit"`
	ConsumptionUnit         optString `json:"consumption_unit"`
	ElectricConsumptionUnit optString `json:"electric_consumption_unit"`
	GasConsumptionUnit      optString `json:"gas_consumption_unit"`
	Currency                optString `json:"currency"`
	Locale                  optString `json:"locale"`
	TimeZone                optString `json:"time_zone"`
	Language                optString `json:"language"`
}

// preferencesResponse is the whole of a user's preferences; null is "not
// chosen yet" (updated_at: never saved).
type preferencesResponse struct {
	DistanceUnit            *string `json:"distance_unit"`
	VolumeUnit              *string `json:"volume_unit"`
	ConsumptionUnit         *string `json:"consumption_unit"`
	ElectricConsumptionUnit *string `json:"electric_consumption_unit"`
	GasConsumptionUnit      *string `json:"gas_consumption_unit"`
	Currency                *string `json:"currency"`
	Locale                  *string `json:"locale"`
	TimeZone                *string `json:"time_zone"`
	Language                *string `json:"language"`
	UpdatedAt               *string `json:"updated_at"`
	// LastCurrencyChange is the last conversion of the currency, for its
	// undo on any device; null when there is none to undo.
	LastCurrencyChange *currencyConversionResponse `json:"last_currency_change"`
}

// currencyConversionResponse is a conversion as it was asked for: the
// rate under the name it was sent with (rate or inverse_rate, the other
// null), so that its undo sends the same number under the other name.
type currencyConversionResponse struct {
	From        string       `json:"from"`
	To          string       `json:"to"`
	Rate        *json.Number `json:"rate"`
	InverseRate *json.Number `json:"inverse_rate"`
	At          string       `json:"at"`
}

func toPreferencesResponse(p fuel.Preferences) preferencesResponse {
	out := preferencesResponse{
		DistanceUnit: nullIfEmpty(p.DistanceUnit), VolumeUnit: nullIfEmpty(p.VolumeUnit),
		ConsumptionUnit: nullIfEmpty(p.ConsumptionUnit), ElectricConsumptionUnit: nullIfEmpty(p.ElectricConsumptionUnit),
		GasConsumptionUnit: nullIfEmpty(p.GasConsumptionUnit), Currency: nullIfEmpty(p.Currency),
		Locale: nullIfEmpty(p.Locale), TimeZone: nullIfEmpty(p.TimeZone), Language: nullIfEmpty(p.Language),
	}
	if !p.UpdatedAt.IsZero() {
		s := formatTime(p.UpdatedAt)
		out.UpdatedAt = &s
	}
	if c := p.LastCurrencyChange; c != nil {
		n := number(c.Rate)
		out.LastCurrencyChange = &currencyConversionResponse{From: c.From, To: c.To, At: formatTime(c.At)}
		if c.Inverse {
			out.LastCurrencyChange.InverseRate = &n
		} else {
			out.LastCurrencyChange.Rate = &n
		}
	}
	return out
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// toPreferencesUpdate turns the body into a patch, checking each value
// that is set (the error names every bad member, in table order). A
// string, even "", is a value to check: only null clears.
func (req preferencesRequest) toPreferencesUpdate() (fuel.PreferencesUpdate, error) {
	var (
		u    fuel.PreferencesUpdate
		errs []error
	)
	members := []optString{req.DistanceUnit, req.VolumeUnit, req.ConsumptionUnit, req.ElectricConsumptionUnit,
		req.GasConsumptionUnit, req.Currency, req.Locale, req.TimeZone, req.Language}
	dst := []**string{&u.DistanceUnit, &u.VolumeUnit, &u.ConsumptionUnit, &u.ElectricConsumptionUnit,
		&u.GasConsumptionUnit, &u.Currency, &u.Locale, &u.TimeZone, &u.Language}
	for i, f := range u.Fields() {
		o := members[i]
		if !o.Set {
			continue
		}
		v := "" // null: clear
		if !o.Null {
			var err error
			if v, err = fuel.ParsePreference(f.Name, o.V); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		*dst[i] = &v
	}
	if err := apperr.Join(errs...); err != nil {
		return fuel.PreferencesUpdate{}, err
	}
	return u, nil
}

func (a *API) getPreferences(c *gin.Context) {
	p, err := a.store.Preferences(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toPreferencesResponse(p))
}

func (a *API) updatePreferences(c *gin.Context) {
	var req preferencesRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toPreferencesUpdate()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	p, err := a.store.UpdatePreferences(c.Request.Context(), u)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toPreferencesResponse(p))
}

// preferencesOnce returns the caller's preferences, read from the store
// the first time they are asked for and not again: a request that needs
// both the zone and the language reads them once, one that needs neither
// not at all.
func (a *API) preferencesOnce(ctx context.Context) func() (fuel.Preferences, error) {
	return sync.OnceValues(func() (fuel.Preferences, error) { return a.store.Preferences(ctx) })
}

// preferredZone is the zone of a monthly series or an import that names
// none: the caller's time_zone preference, else UTC. A stored zone this
// binary no longer knows (zones are renamed, never removed, so it should
// not happen) falls back to UTC with a warning rather than failing the
// request.
func (a *API) preferredZone(ctx context.Context, prefs func() (fuel.Preferences, error)) (*time.Location, error) {
	p, err := prefs()
	if err != nil {
		return nil, err
	}
	if p.TimeZone == "" {
		return time.UTC, nil
	}
	loc, err := fuel.ParseTimeZone("time_zone", p.TimeZone)
	if err != nil {
		a.log.WarnContext(ctx, "stored time_zone preference unknown; using UTC", "time_zone", p.TimeZone, "err", err)
		return time.UTC, nil
	}
	return loc, nil
}

// ownerLanguage is the language of the caller: the locale preference when
// chosen, else the first of the request's Accept-Language (a browser's
// own), else undetermined. The CSV import reads a file that is not UTF-8
// in the code page of this language.
func ownerLanguage(prefs func() (fuel.Preferences, error), r *http.Request) (language.Tag, error) {
	p, err := prefs()
	if err != nil {
		return language.Und, err
	}
	if p.Locale != "" {
		if tag, err := language.Parse(p.Locale); err == nil {
			return tag, nil
		}
	}
	if tags, _, err := language.ParseAcceptLanguage(r.Header.Get("Accept-Language")); err == nil && len(tags) > 0 {
		return tags[0], nil
	}
	return language.Und, nil
}
