package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/refuelcsv"
	"github.com/gin-gonic/gin"
)

func (a *API) exportRefuels(c *gin.Context) {
	exportCSV(a, c, "refuels", func(w io.Writer, spreadsheet, decimalComma bool, loc *time.Location) *refuelcsv.Writer {
		if spreadsheet {
			return refuelcsv.NewSpreadsheetWriter(w, decimalComma).InZone(loc)
		}
		return refuelcsv.NewWriter(w).InZone(loc)
	}, a.store.ExportRefuels)
}

func (a *API) importRefuels(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	q := c.Request.URL.Query()
	opts := refuelcsv.Options{VehicleID: id, VolumeUnit: q.Get("volume_unit"), DistanceUnit: q.Get("distance_unit"), DateFormat: q.Get("date_format")}
	// Every option is read before any is reported, so that one answer
	// names each bad one (apperr.Join in readImport).
	out, ok := importCSV(a, c, id, opts.Check(), func(v fuel.Vehicle) {
		opts.FuelType = v.FuelType
		opts.Energy = fuel.DefaultEnergy(v.FuelType)
	}, func(text []byte, loc *time.Location) (csvRows[fuel.Refuel], error) {
		opts.Location = loc
		res, err := refuelcsv.Read(bytes.NewReader(text), opts)
		return csvRows[fuel.Refuel]{rows: res.Rows, badRows: res.BadRows, records: res.Refuels, errors: res.Errors}, err
	}, a.store.ImportRefuels)
	if !ok {
		return
	}
	if !out.DryRun {
		a.metrics.refuelsImported.Add(float64(out.Imported))
	}
	c.JSON(http.StatusOK, out)
}
