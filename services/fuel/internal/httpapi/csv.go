package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/csvfile"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// exportFlushRows is how many rows the export writes between flushes.
const exportFlushRows = 200

// csvWriter writes records of T as CSV.
type csvWriter[T any] interface {
	WriteHeader() error
	Write(T) error
	Flush() error
}

// exportCSV serves the export of a vehicle's records (what names them in
// the file name): ?spreadsheet=true writes for a spreadsheet in the
// owner's language (newWriter's decimalComma), times are written in the
// zone tz, else the owner's time_zone preference, else UTC (newWriter's
// loc), rows are flushed every exportFlushRows, and a failure after the
// first byte cuts the connection.
func exportCSV[T any, W csvWriter[T]](a *API, c *gin.Context, what string, newWriter func(w io.Writer, spreadsheet, decimalComma bool, loc *time.Location) W,
	export func(ctx context.Context, vehicleID uint64, fn func(T) error) error) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	q := c.Request.URL.Query()
	ctx := c.Request.Context()
	prefs := a.preferencesOnce(ctx) // the zone's and the language's default
	spreadsheet, err := queryBool(q, "spreadsheet")
	loc, zoneErr := queryZone(q, func() (*time.Location, error) { return a.preferredZone(ctx, prefs) })
	if err := apperr.Join(err, zoneErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	// The vehicle is looked up before the first byte, so that an unknown
	// one is a JSON 404 rather than an empty file.
	if _, err := a.store.Vehicle(ctx, id); err != nil {
		ginx.Fail(c, err)
		return
	}
	decimalComma := false
	if spreadsheet {
		lang, err := ownerLanguage(prefs, c.Request)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		decimalComma = csvfile.DecimalComma(lang)
	}
	w := newWriter(c.Writer, spreadsheet, decimalComma, loc)
	c.Header("Content-Type", "text/csv; charset=utf-8")
	c.Header("Content-Disposition", fmt.Sprintf(`attachment; filename="vehicle-%d-%s.csv"`, id, what))
	c.Status(http.StatusOK)
	err = w.WriteHeader()
	n := 0
	if err == nil {
		err = export(ctx, id, func(r T) error {
			if err := w.Write(r); err != nil {
				return err
			}
			if n++; n%exportFlushRows == 0 {
				if err := w.Flush(); err != nil {
					return err
				}
				c.Writer.Flush()
			}
			return nil
		})
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		// The status is sent: the client sees a cut file. Dropping the
		// connection tells it the file is incomplete.
		a.log.ErrorContext(ctx, "export cut", "vehicle_id", id, "what", what, "rows", n, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// importResponse is the answer of an import; Errors lists the bad rows
// (only on 400, inside the error body).
type importResponse struct {
	Imported int  `json:"imported"`
	Skipped  int  `json:"skipped"`
	Rows     int  `json:"rows"`
	DryRun   bool `json:"dry_run"`
	// Encoding is the text encoding the file was read in (csvfile.Decode).
	Encoding string `json:"encoding"`
}

// importErrorResponse is the 400 answer of an import with bad rows: the
// usual error body plus every bad row (at most csvfile.MaxRowErrors
// listed; bad_rows counts them all).
type importErrorResponse struct {
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Rows    int                `json:"rows"`
	BadRows int                `json:"bad_rows"`
	Errors  []csvfile.RowError `json:"errors"`
}

// csvRows is what a kind's reader found in an import's file: the data
// rows read, the good records, and the bad rows (errors at most
// csvfile.MaxRowErrors of them).
type csvRows[T any] struct {
	rows, badRows int
	records       []T
	errors        []csvfile.RowError
}

// importCSV runs what every CSV import shares: readImport (optErr the
// kind's option errors, vehicle given the vehicle for the kind's options),
// the kind's read of the decoded file in the import's zone, all or nothing
// when a row is bad, and store's import. It answers every error itself and
// then returns false; else the caller answers with the response.
func importCSV[T any](a *API, c *gin.Context, id uint64, optErr error, vehicle func(fuel.Vehicle),
	read func(text []byte, loc *time.Location) (csvRows[T], error),
	store func(ctx context.Context, vehicleID uint64, recs []T, dryRun bool) (fuel.ImportResult, error)) (importResponse, bool) {
	in, err := a.readImport(c, id, optErr, vehicle)
	if err != nil {
		ginx.Fail(c, err)
		return importResponse{}, false
	}
	res, err := read(in.text, in.location)
	if err != nil {
		ginx.Fail(c, err)
		return importResponse{}, false
	}
	if res.badRows > 0 {
		badRows(c, res.rows, res.badRows, res.errors)
		return importResponse{}, false
	}
	out, err := store(c.Request.Context(), id, res.records, in.dryRun)
	if err != nil {
		ginx.Fail(c, err)
		return importResponse{}, false
	}
	return importResponse{Imported: out.Imported, Skipped: out.Skipped, Rows: res.rows, DryRun: in.dryRun, Encoding: in.encoding}, true
}

// importRequest is what every CSV import reads before its rows.
type importRequest struct {
	dryRun   bool
	location *time.Location // of dates without an offset: tz, else the owner's zone
	text     []byte         // the file in UTF-8
	encoding string         // the one it was read in
}

// readImport reads what every import shares: the options tz, encoding and
// dry_run, reported with the import's own option errors (optErr) in one
// answer; the vehicle, which the caller must see (vehicle gets it); and the
// file, decoded to UTF-8.
func (a *API) readImport(c *gin.Context, id uint64, optErr error, vehicle func(fuel.Vehicle)) (importRequest, error) {
	optErrs := []error{optErr}
	var in importRequest
	q := c.Request.URL.Query()
	ctx := c.Request.Context()
	prefs := a.preferencesOnce(ctx) // the zone's and the encoding's default
	var err error
	in.location, err = queryZone(q, func() (*time.Location, error) { return a.preferredZone(ctx, prefs) })
	optErrs = append(optErrs, err)
	enc, err := csvfile.ParseEncoding(q.Get("encoding"))
	optErrs = append(optErrs, err)
	in.dryRun, err = queryBool(q, "dry_run")
	optErrs = append(optErrs, err)
	if err := apperr.Join(optErrs...); err != nil {
		return in, err
	}
	v, err := a.store.Vehicle(ctx, id)
	if err != nil {
		return in, err
	}
	vehicle(v)
	file, err := importFile(c.Request)
	if err != nil {
		return in, err
	}
	in.text, in.encoding, err = csvfile.Decode(file, enc, func() (language.Tag, error) { return ownerLanguage(prefs, c.Request) })
	return in, err
}

// badRows answers an import whose file has bad rows: nothing is imported.
func badRows(c *gin.Context, rows, bad int, errs []csvfile.RowError) {
	c.AbortWithStatusJSON(http.StatusBadRequest, importErrorResponse{
		Code:    string(apperr.InvalidArgument),
		Message: fmt.Sprintf("file: %d of %d rows are bad; nothing was imported", bad, rows),
		Rows:    rows, BadRows: bad, Errors: errs,
	})
}

// queryBool reads a boolean query parameter: true or 1, false or 0;
// absent is false.
func queryBool(q url.Values, name string) (bool, error) {
	raw, ok := q[name]
	if !ok {
		return false, nil
	}
	switch raw[0] {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, apperr.Invalid(name, "must be true or false")
}

// importFile returns the part named file of a multipart body: exactly one,
// at most MaxImportBytes. The parts are read as a stream, not buffered to
// disk.
func importFile(r *http.Request) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, apperr.Invalid("file", "request must be multipart/form-data with a part named file")
	}
	var file []byte
	found := false
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if p.FormName() != "file" {
			if _, err := io.Copy(io.Discard, p); err != nil {
				return nil, bodyError(err)
			}
			continue
		}
		if found {
			return nil, apperr.Invalid("file", "must be sent once")
		}
		found = true
		file, err = io.ReadAll(io.LimitReader(p, MaxImportBytes+1))
		if err != nil {
			return nil, bodyError(err)
		}
		if len(file) > MaxImportBytes {
			return nil, apperr.New(apperr.PayloadTooLarge, "file: is larger than 10 MiB")
		}
	}
	if !found {
		return nil, apperr.Invalid("file", "is required (a multipart part named file)")
	}
	return file, nil
}

func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return ginx.TooLarge(mbe.Limit)
	}
	return apperr.Invalid("file", "multipart body is malformed: %v", err)
}
