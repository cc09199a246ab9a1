package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/receipt"
	"github.com/carhub/backend/services/docqa/internal/receiptscan"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// receiptsDay is the corpus's "today": its receipts are of November 2026.
var receiptsDay = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// receiptServer serves the docqa routes with scanner reading receipts;
// with secret, accounts are on and uploadsPerUser bounds each user.
func receiptServer(t *testing.T, scanner httpapi.ReceiptScanner, secret []byte, uploadsPerUser int) string {
	t.Helper()
	store, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	mode := auth.ModeOff
	if secret != nil {
		mode = auth.ModeLocal
	}
	engine := httpapi.New(httpapi.Config{Store: store, Embedder: provider.NewLexicalEmbedder(), Receipts: scanner,
		AuthMode: mode, IdentitySecret: secret, UploadsPerUser: uploadsPerUser, UploadStallTimeout: time.Minute})
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	return srv.URL
}

// scanPhoto posts parts to /api/receipts/scan as identity ("" for none)
// with the Accept-Language given.
func scanPhoto(t *testing.T, url, identity, acceptLanguage string, parts ...part) (*http.Response, []byte) {
	t.Helper()
	ct, body := multipartBody(t, parts...)
	req, err := http.NewRequest(http.MethodPost, url+"/api/receipts/scan", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	if identity != "" {
		req.Header.Set(auth.HeaderIdentity, identity)
	}
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	return exchange(t, http.DefaultClient, req)
}

type receiptAnswer struct {
	Kind       string                `json:"kind"`
	Fields     map[string]string     `json:"fields"`
	Confidence map[string]float64    `json:"confidence"`
	Boxes      map[string][4]float64 `json:"boxes"`
	Text       string                `json:"text"`
}

// recordingScanner answers a fixed reading, remembers the region it was
// given, and holds each scan until release is closed (when set).
type recordingScanner struct {
	mu      sync.Mutex
	regions []string
	entered chan struct{}
	release chan struct{}
}

func (s *recordingScanner) Scan(ctx context.Context, data []byte, region string) (receiptscan.Result, error) {
	s.mu.Lock()
	s.regions = append(s.regions, region)
	s.mu.Unlock()
	if _, ok := receiptscan.Sniff(data); !ok {
		return receiptscan.Result{}, receiptscan.ErrNotImage
	}
	if s.entered != nil {
		s.entered <- struct{}{}
		<-s.release
	}
	return receiptscan.Result{Reading: receipt.Reading{Kind: receipt.Expense,
		Fields:     map[string]string{receipt.Total: "12.00", receipt.Currency: "EUR"},
		Confidence: map[string]float64{receipt.Total: 0.912345, receipt.Currency: 0.9},
		Boxes:      map[string]receipt.Box{receipt.Total: {X: 0.1, Y: 0.5, W: 0.8, H: 0.03}}}, Text: "Summe 12,00 EUR"}, nil
}

func (s *recordingScanner) lastRegion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.regions[len(s.regions)-1]
}

func tinyJPEG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// What is not a photo is 400 naming file, whatever its name or declared
// type; a photo over 10 MiB is 413; no file part is 400 naming file.
func TestScanReceiptRefusesWhatIsNoPhoto(t *testing.T) {
	url := receiptServer(t, &recordingScanner{}, nil, 0)
	for name, c := range map[string]struct {
		parts  []part
		status int
		code   string
		msg    string
	}{
		"text":            {[]part{{"file", "receipt.jpg", []byte("TOTAL 12.00 EUR\n")}}, 400, "INVALID_ARGUMENT", "file: is not a JPEG, PNG, WebP or HEIC image"},
		"pdf":             {[]part{{"file", "receipt.png", []byte("%PDF-1.7\n1 0 obj\n")}}, 400, "INVALID_ARGUMENT", "file: is not a JPEG"},
		"no file":         {[]part{{"region", "", []byte("DE")}}, 400, "INVALID_ARGUMENT", "file: missing"},
		"two files":       {[]part{{"file", "a.jpg", tinyJPEG(t)}, {"file", "b.jpg", tinyJPEG(t)}}, 400, "INVALID_ARGUMENT", "file: more than one"},
		"bad region":      {[]part{{"file", "a.jpg", tinyJPEG(t)}, {"region", "", []byte("Germany")}}, 400, "INVALID_ARGUMENT", "region:"},
		"over 10 MiB":     {[]part{{"file", "big.jpg", append(tinyJPEG(t), make([]byte, httpapi.MaxReceiptBytes)...)}}, 413, "PAYLOAD_TOO_LARGE", "10 MiB"},
		"exactly 10 MiB ": {[]part{{"file", "big.jpg", append(tinyJPEG(t), make([]byte, httpapi.MaxReceiptBytes-len(tinyJPEG(t)))...)}}, 200, "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			resp, body := scanPhoto(t, url, "", "", c.parts...)
			if c.status == 200 {
				if resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				return
			}
			var e errorBody
			if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != c.status || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("%d %s; want %d %s containing %q", resp.StatusCode, body, c.status, c.code, c.msg)
			}
		})
	}
	// Not multipart at all.
	resp, err := http.Post(url+"/api/receipts/scan", "image/jpeg", bytes.NewReader(tinyJPEG(t)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("a bare JPEG body: %d, want 400", resp.StatusCode)
	}
}

// The answer's shape, and the owner's region: the form's region, else the
// first Accept-Language naming a country.
func TestScanReceiptAnswerAndRegion(t *testing.T) {
	sc := &recordingScanner{}
	url := receiptServer(t, sc, nil, 0)
	resp, body := scanPhoto(t, url, "", "de-AT,de;q=0.9,en-US;q=0.5", part{"file", "x.bin", tinyJPEG(t)})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	want := `{"kind":"expense","fields":{"currency":"EUR","total":"12.00"},"confidence":{"currency":0.9,"total":0.9123},` +
		`"boxes":{"total":[0.1,0.5,0.8,0.03]},"text":"Summe 12,00 EUR"}`
	if string(body) != want {
		t.Fatalf("answer\n%s\nwant\n%s", body, want)
	}
	if sc.lastRegion() != "AT" {
		t.Errorf("region from Accept-Language: %q, want AT", sc.lastRegion())
	}
	for _, c := range []struct{ form, header, want string }{
		{"us", "de-DE", "US"}, // the form wins
		{"", "de", ""},        // a language names no country
		{"", "", ""},
		{"", "zh-Hans-CN", "CN"},
	} {
		parts := []part{{"file", "x.jpg", tinyJPEG(t)}}
		if c.form != "" {
			parts = append(parts, part{"region", "", []byte(c.form)})
		}
		if resp, body := scanPhoto(t, url, "", c.header, parts...); resp.StatusCode != 200 || sc.lastRegion() != c.want {
			t.Errorf("region %q, Accept-Language %q: %d %s, region %q; want %q", c.form, c.header, resp.StatusCode, body, sc.lastRegion(), c.want)
		}
	}
}

// Without OCR the route answers 503, saying why.
func TestScanReceiptWithoutOCR(t *testing.T) {
	url := receiptServer(t, nil, nil, 0)
	resp, body := scanPhoto(t, url, "", "", part{"file", "x.jpg", tinyJPEG(t)})
	if resp.StatusCode != 503 || !strings.Contains(string(body), "OCR") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// Authentication and the per-user limit are the uploads': no identity is
// 401, a read-only one 403, and a user's second photo while the first is
// read is 429, another user's is not.
func TestScanReceiptAuthAndLimit(t *testing.T) {
	sc := &recordingScanner{entered: make(chan struct{}), release: make(chan struct{})}
	url := receiptServer(t, sc, limitSecret, 1)
	sign := func(user uint64, scope auth.Scope) string {
		return auth.Sign(limitSecret, auth.Identity{UserID: user, Username: "u", Scope: scope}, time.Now())
	}
	if resp, body := scanPhoto(t, url, "", "", part{"file", "x.jpg", tinyJPEG(t)}); resp.StatusCode != 401 {
		t.Fatalf("no identity: %d %s", resp.StatusCode, body)
	}
	if resp, body := scanPhoto(t, url, sign(7, auth.ScopeRead), "", part{"file", "x.jpg", tinyJPEG(t)}); resp.StatusCode != 403 {
		t.Fatalf("read-only identity: %d %s", resp.StatusCode, body)
	}
	done := make(chan int)
	go func() {
		resp, _ := scanPhoto(t, url, sign(7, auth.ScopeWrite), "", part{"file", "x.jpg", tinyJPEG(t)})
		done <- resp.StatusCode
	}()
	<-sc.entered
	if resp, body := scanPhoto(t, url, sign(7, auth.ScopeWrite), "", part{"file", "x.jpg", tinyJPEG(t)}); resp.StatusCode != 429 {
		t.Errorf("the same user's second photo: %d %s", resp.StatusCode, body)
	}
	go func() { <-sc.entered }() // user 8's scan enters and waits for the release
	other := make(chan int)
	go func() {
		resp, _ := scanPhoto(t, url, sign(8, auth.ScopeWrite), "", part{"file", "x.jpg", tinyJPEG(t)})
		other <- resp.StatusCode
	}()
	close(sc.release)
	if st := <-done; st != 200 {
		t.Errorf("the first photo: %d", st)
	}
	if st := <-other; st != 200 {
		t.Errorf("another user's photo: %d", st)
	}
}

// realScanner reads with Tesseract as the service does with
// OCR_LANGUAGES=auto.
func realScanner(t *testing.T) *receiptscan.Scanner {
	t.Helper()
	command := ocrtest.Require(t)
	langs := []string{"chi_sim", "deu", "eng"}
	if _, _, err := ocr.Check(context.Background(), command, append(langs, "osd")); err != nil {
		if errors.Is(err, ocr.ErrMissingLanguage) {
			tooltest.Missing(t, err.Error())
		}
		t.Fatal(err)
	}
	e, err := ocr.New(ocr.Config{Command: command, Languages: langs, Auto: true, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	return receiptscan.New(receiptscan.Config{OCR: e, Now: func() time.Time { return receiptsDay }})
}

// Photos of the corpus read through real Tesseract, as a JPEG, as a PNG
// and as a WebP; a photo of nothing is 200 with no fields.
func TestScanReceiptPhotos(t *testing.T) {
	url := receiptServer(t, realScanner(t), nil, 0)
	const photos = "../receipt/testdata/photos/"
	read := func(t *testing.T, path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	jpg := read(t, photos+"dev-01-uk-tesco-unleaded.jpg")
	img, err := jpeg.Decode(bytes.NewReader(jpg))
	if err != nil {
		t.Fatal(err)
	}
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}
	tesco := map[string]string{"date": "2026-11-30", "time": "14:32", "quantity": "40.12", "unit": "l", "unit_price": "1.529",
		"total": "61.34", "currency": "GBP", "energy": "gasoline", "vendor": "TESCO"}
	aral := map[string]string{"date": "2026-11-30", "time": "16:05", "quantity": "45.32", "unit": "l", "unit_price": "1.759",
		"total": "79.72", "currency": "EUR", "energy": "gasoline", "vendor": "ARAL Tankstelle"}
	blank := image.NewGray(image.Rect(0, 0, 500, 800))
	for i := range blank.Pix {
		blank.Pix[i] = 245
	}
	var blankPNG bytes.Buffer
	if err := png.Encode(&blankPNG, blank); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		kind string
		// want must be read; every other field read must be right (all
		// holds the receipt's fields).
		want, all map[string]string
	}{
		{"jpeg", jpg, "fuel", map[string]string{"date": "2026-11-30", "total": "61.34"}, tesco},
		{"png", pngData.Bytes(), "fuel", map[string]string{"date": "2026-11-30", "total": "61.34"}, tesco},
		// dev-05-de-aral-e10.jpg encoded again as a lossy WebP (quality
		// 60): "79,72" of its total line is read "79112", so the total is
		// left absent; the fuel line and the date are read.
		{"webp", read(t, "../receiptscan/testdata/de-aral-e10.webp"), "fuel",
			map[string]string{"date": "2026-11-30", "quantity": "45.32", "unit_price": "1.759"}, aral},
		{"blank", blankPNG.Bytes(), "unknown", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := scanPhoto(t, url, "", "en-GB", part{"file", "photo", c.data})
			var got receiptAnswer
			if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if got.Kind != c.kind {
				t.Fatalf("kind %s, want %s\n%s", got.Kind, c.kind, got.Text)
			}
			for f, v := range c.want {
				if got.Fields[f] != v {
					t.Errorf("%s %q, want %q\n%s", f, got.Fields[f], v, got.Text)
				}
			}
			for f, v := range got.Fields {
				if c.all[f] != v {
					t.Errorf("%s read %q, the receipt prints %q", f, v, c.all[f])
				}
			}
			if c.kind == "unknown" {
				if len(got.Fields) != 0 || len(got.Boxes) != 0 {
					t.Fatalf("a photo of nothing: %s", body)
				}
				return
			}
			for f := range c.want {
				b, ok := got.Boxes[f]
				if !ok || b[0] < 0 || b[1] < 0 || b[2] <= 0 || b[3] <= 0 || b[0]+b[2] > 1 || b[1]+b[3] > 1 {
					t.Errorf("%s's box %v", f, b)
				}
				if c := got.Confidence[f]; c <= 0 || c > 1 {
					t.Errorf("%s's confidence %v", f, c)
				}
			}
		})
	}
}
