package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/receipt"
	"github.com/carhub/backend/services/docqa/internal/receiptscan"
)

// MaxReceiptBytes bounds the photo of POST /api/receipts/scan (10 MiB); the
// whole request may carry a little more for the multipart's headers and
// the region field.
const (
	MaxReceiptBytes   = 10 << 20
	maxReceiptRequest = MaxReceiptBytes + 64<<10
)

// ReceiptScanner reads a photo of a receipt (receiptscan.Scanner).
type ReceiptScanner interface {
	Scan(ctx context.Context, data []byte, region string) (receiptscan.Result, error)
}

// receiptView is the answer of POST /api/receipts/scan: only the fields
// the receipt prints, each with its confidence (0..1) and, when OCR gave
// one, its box [x, y, w, h] as fractions of the photo as shown.
type receiptView struct {
	Kind       receipt.Kind          `json:"kind"`
	Fields     map[string]string     `json:"fields"`
	Confidence map[string]float64    `json:"confidence"`
	Boxes      map[string][4]float64 `json:"boxes"`
	Text       string                `json:"text"`
}

// scanReceipt reads the photo in the part named file and forgets it: the
// bytes live in this request's memory only.
func (h *handler) scanReceipt(c *gin.Context) {
	if h.cfg.Receipts == nil {
		ginx.Fail(c, apperr.New(apperr.Unavailable,
			"receipts are read by OCR, which is not installed or is turned off on this server (tesseract, OCR=auto)"))
		return
	}
	data, region, err := h.receivePhoto(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if region == "" {
		region = acceptRegion(c.GetHeader("Accept-Language"))
	}
	res, err := h.cfg.Receipts.Scan(c.Request.Context(), data, region)
	if err != nil {
		ginx.Fail(c, receiptError(err))
		return
	}
	c.JSON(http.StatusOK, toReceiptView(res))
}

var regionPattern = regexp.MustCompile(`^[A-Za-z]{2}$`)

// receivePhoto reads the multipart request: the photo in the part named
// file (at most MaxReceiptBytes), the optional region (ISO 3166-1
// alpha-2) in a part named region; other parts are skipped.
func (h *handler) receivePhoto(c *gin.Context) ([]byte, string, error) {
	done := httpserver.StallTimeout(c.Writer, c.Request, h.cfg.UploadStallTimeout)
	defer done()
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, "", apperr.Invalid("file", "the request must be multipart/form-data with the photo in a part named file")
	}
	var data []byte
	var region string
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", bodyError(err)
		}
		switch part.FormName() {
		case "file":
			if data != nil {
				return nil, "", apperr.Invalid("file", "more than one file part: send exactly one photo")
			}
			var buf bytes.Buffer
			n, err := buf.ReadFrom(io.LimitReader(part, MaxReceiptBytes+1))
			if err != nil {
				return nil, "", bodyError(err)
			}
			if n > MaxReceiptBytes {
				return nil, "", ginx.TooLarge(MaxReceiptBytes)
			}
			data = buf.Bytes()
		case "region":
			b, err := io.ReadAll(io.LimitReader(part, 16))
			if err != nil {
				return nil, "", bodyError(err)
			}
			region = strings.TrimSpace(string(b))
			if region != "" && !regionPattern.MatchString(region) {
				return nil, "", apperr.Invalid("region", "must be a country code of two letters (ISO 3166-1 alpha-2), such as DE or US")
			}
			region = strings.ToUpper(region)
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, "", bodyError(err)
			}
		}
	}
	if data == nil {
		return nil, "", apperr.Invalid("file", "missing: send the photo in a multipart part named file")
	}
	return data, region, nil
}

// acceptRegion is the country of the first language of an Accept-Language
// header that names one (de-AT, en-US); a bare language (de) names none.
func acceptRegion(header string) string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		return ""
	}
	for _, t := range tags {
		if r, conf := t.Region(); conf == language.Exact {
			return r.String()
		}
	}
	return ""
}

// receiptError maps the scanner's errors: the photo's faults are 400
// naming file (never 5xx for a bad image); OCR past its time, 503.
func receiptError(err error) error {
	switch {
	case errors.Is(err, receiptscan.ErrNotImage):
		return apperr.Invalid("file", "is not a JPEG, PNG, WebP or HEIC image (the type is read from the content)")
	case errors.Is(err, receiptscan.ErrTooManyPixels):
		return apperr.Invalid("file", "has more than %d megapixels", receiptscan.MaxPixels/1_000_000)
	case errors.Is(err, receiptscan.ErrCorrupt):
		return apperr.InvalidCause(err, "file", "the image is corrupt and cannot be decoded")
	case errors.Is(err, ocr.ErrTimeout):
		return apperr.Wrap(apperr.Unavailable, err, "reading the photo ran past OCR's time budget; try again")
	}
	return err
}

func toReceiptView(res receiptscan.Result) receiptView {
	v := receiptView{Kind: res.Kind, Fields: map[string]string{}, Confidence: map[string]float64{},
		Boxes: map[string][4]float64{}, Text: res.Text}
	for k, val := range res.Fields {
		v.Fields[k] = val
		if c, ok := res.Confidence[k]; ok {
			v.Confidence[k] = round4(c)
		}
		if b, ok := res.Boxes[k]; ok && !b.IsZero() {
			v.Boxes[k] = [4]float64{round4(b.X), round4(b.Y), round4(b.W), round4(b.H)}
		}
	}
	if v.Kind == "" {
		v.Kind = receipt.Unknown
	}
	return v
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
