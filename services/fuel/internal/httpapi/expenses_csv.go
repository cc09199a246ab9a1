package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/expensecsv"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/gin-gonic/gin"
)

func (a *API) exportExpenses(c *gin.Context) {
	exportCSV(a, c, "expenses", func(w io.Writer, spreadsheet, decimalComma bool, loc *time.Location) *expensecsv.Writer {
		if spreadsheet {
			return expensecsv.NewSpreadsheetWriter(w, decimalComma).InZone(loc)
		}
		return expensecsv.NewWriter(w).InZone(loc)
	}, a.store.ExportExpenses)
}

// expenseImportResponse is importResponse plus the format read and the
// rows that are no expense (Fuelio's income and reminder templates).
type expenseImportResponse struct {
	importResponse
	Format  string `json:"format"`
	Ignored int    `json:"ignored"`
}

// importExpenses reads a CSV file of expenses (expensecsv.Read: ours,
// LubeLogger's, Fuelio's) with the refuel import's rules: all or nothing,
// dry_run, encoding, tz.
func (a *API) importExpenses(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	q := c.Request.URL.Query()
	opts := expensecsv.Options{VehicleID: id, RecordType: q.Get("record_type"), DateFormat: q.Get("date_format"), DistanceUnit: q.Get("distance_unit")}
	in, err := a.readImport(c, id, opts.Check(), func(fuel.Vehicle) {})
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	opts.Location = in.location
	res, err := expensecsv.Read(bytes.NewReader(in.text), opts)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if res.BadRows > 0 {
		badRows(c, res.Rows, res.BadRows, res.Errors)
		return
	}
	out, err := a.store.ImportExpenses(c.Request.Context(), id, res.Expenses, in.dryRun)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, expenseImportResponse{
		importResponse: importResponse{Imported: out.Imported, Skipped: out.Skipped, Rows: res.Rows, DryRun: in.dryRun, Encoding: in.encoding},
		Format:         res.Format, Ignored: res.Ignored,
	})
}
