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
	var res expensecsv.Result
	out, ok := importCSV(a, c, id, opts.Check(), func(fuel.Vehicle) {}, func(text []byte, loc *time.Location) (csvRows[fuel.Expense], error) {
		opts.Location = loc
		var err error
		res, err = expensecsv.Read(bytes.NewReader(text), opts)
		return csvRows[fuel.Expense]{rows: res.Rows, badRows: res.BadRows, records: res.Expenses, errors: res.Errors}, err
	}, a.store.ImportExpenses)
	if !ok {
		return
	}
	c.JSON(http.StatusOK, expenseImportResponse{importResponse: out, Format: res.Format, Ignored: res.Ignored})
}
