package pageview

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// engine draws every page in one colour and labels page n labels[n-1]; a
// page past pages is pdftext.ErrPageRange. release, when set, holds each
// render until it is closed; err, when set, is every call's answer.
type engine struct {
	pages   int
	colour  color.RGBA
	labels  []string
	release chan struct{}
	err     error
	renders atomic.Int32
}

func (e *engine) Render(ctx context.Context, _ io.ReaderAt, _ int64, page, width int) (*image.RGBA, error) {
	e.renders.Add(1)
	if e.release != nil {
		<-e.release
	}
	if e.err != nil {
		return nil, e.err
	}
	if page > e.pages {
		return nil, pdftext.ErrPageRange
	}
	img := image.NewRGBA(image.Rect(0, 0, width, width*3/2))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = e.colour.R, e.colour.G, e.colour.B, 255
	}
	return img, nil
}

func (e *engine) PageLabel(_ context.Context, _ io.ReaderAt, _ int64, page int) (string, int, error) {
	if e.err != nil {
		return "", 0, e.err
	}
	if page > e.pages {
		return "", e.pages, pdftext.ErrPageRange
	}
	if page <= len(e.labels) {
		return e.labels[page-1], e.pages, nil
	}
	return "", e.pages, nil
}

// dir keeps originals as files named by their MD5.
type dir string

func (d dir) Open(md5 string) (*os.File, error) { return os.Open(filepath.Join(string(d), md5)) }

// memCache is a Cache in memory.
type memCache struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (c *memCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.data[key]
	return d, ok
}

func (c *memCache) Put(key string, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data[key] = data
	return nil
}

func (c *memCache) RemovePrefix(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.data {
		if strings.HasPrefix(k, prefix) {
			delete(c.data, k)
		}
	}
}

const md5 = "0123456789abcdef0123456789abcdef"

// newService keeps pdf as md5's original and serves it with e.
func newService(t *testing.T, e *engine, pdf []byte, budget time.Duration) (*Service, *memCache, string) {
	t.Helper()
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, md5), pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := &memCache{data: map[string][]byte{}}
	return New(Config{Engine: e, Originals: dir(d), Cache: cache, Budget: budget}), cache, d
}

func decode(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// A gray page is an 8-bit gray PNG, a coloured one RGB; both are cached
// under PNGKey and served from there.
func TestPNG(t *testing.T) {
	for _, tc := range []struct {
		name   string
		colour color.RGBA
		model  color.Model
	}{
		{"gray", color.RGBA{R: 200, G: 200, B: 200, A: 255}, color.GrayModel},
		{"colour", color.RGBA{R: 200, G: 20, B: 20, A: 255}, color.RGBAModel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &engine{pages: 2, colour: tc.colour}
			s, cache, _ := newService(t, e, []byte("%PDF-"), 0)
			data, err := s.PNG(context.Background(), md5, 2, 400)
			if err != nil {
				t.Fatal(err)
			}
			img := decode(t, data)
			if img.ColorModel() != tc.model || img.Bounds().Dx() != 400 {
				t.Errorf("image %T %v wide; want %v, 400", img, img.Bounds().Dx(), tc.model)
			}
			if r, g, b, _ := img.At(10, 10).RGBA(); r>>8 != uint32(tc.colour.R) || g>>8 != uint32(tc.colour.G) || b>>8 != uint32(tc.colour.B) {
				t.Errorf("pixel %d %d %d, want %v", r>>8, g>>8, b>>8, tc.colour)
			}
			if cached, ok := cache.Get(PNGKey(md5, 2, 400)); !ok || !bytes.Equal(cached, data) {
				t.Error("the image is not cached under its key")
			}
			if again, err := s.PNG(context.Background(), md5, 2, 400); err != nil || !bytes.Equal(again, data) || e.renders.Load() != 1 {
				t.Errorf("again: %v, %d renders; want the cached image, 1 render", err, e.renders.Load())
			}
		})
	}
}

// Requests of one page at once share one render.
func TestPNGOneRenderForConcurrentRequests(t *testing.T) {
	e := &engine{pages: 1, release: make(chan struct{})}
	s, _, _ := newService(t, e, []byte("%PDF-"), 0)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() {
			_, err := s.PNG(context.Background(), md5, 1, 200)
			errs <- err
		})
	}
	for e.renders.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the others join the flight
	close(e.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := e.renders.Load(); n != 1 {
		t.Errorf("%d renders, want 1", n)
	}
}

// Past the budget the caller gets ErrSlow; the render goes on and fills
// the cache for the retry.
func TestPNGPastTheBudget(t *testing.T) {
	e := &engine{pages: 1, release: make(chan struct{})}
	s, cache, _ := newService(t, e, []byte("%PDF-"), 50*time.Millisecond)
	if _, err := s.PNG(context.Background(), md5, 1, 200); !errors.Is(err, ErrSlow) {
		t.Fatalf("err = %v, want ErrSlow", err)
	}
	close(e.release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := cache.Get(PNGKey(md5, 1, 200)); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the render did not fill the cache")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestErrors(t *testing.T) {
	pdf := ingesttest.Book("", ingesttest.Page{Text: "One."}, ingesttest.Page{Text: "Two."})
	for _, tc := range []struct {
		name string
		e    *engine
		md5  string
		pdf  bool // ask for the PDF, else the PNG
		page int
		want error
	}{
		{"image of a page past the last", &engine{pages: 2}, md5, false, 3, ErrNoPage},
		{"label of a page past the last", &engine{pages: 2}, md5, true, 3, ErrNoPage},
		{"cut of a page past the last", &engine{pages: 9}, md5, true, 3, ErrNoPage},
		{"engine busy", &engine{pages: 2, err: pdftext.ErrBusy}, md5, false, 1, ErrBusy},
		{"engine cannot read", &engine{pages: 2, err: pdftext.ErrCorrupt}, md5, true, 1, ErrUnreadable},
		{"original not kept", &engine{pages: 2}, strings.Repeat("f", 32), false, 1, os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newService(t, tc.e, pdf, 0)
			var err error
			if tc.pdf {
				_, _, err = s.PDF(context.Background(), tc.md5, tc.page)
			} else {
				_, err = s.PNG(context.Background(), tc.md5, tc.page, 200)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// The one-page PDF is a PDF of the page, named by its printed label or,
// without one, its number; both are cached.
func TestPDF(t *testing.T) {
	pdf := ingesttest.Book("", ingesttest.Page{Text: "One."}, ingesttest.Page{Text: "Two."}, ingesttest.Page{Text: "Three."})
	s, cache, _ := newService(t, &engine{pages: 3, labels: []string{"i", "ii"}}, pdf, 0)
	for _, tc := range []struct {
		page  int
		label string
	}{{2, "ii"}, {3, "3"}} {
		data, label, err := s.PDF(context.Background(), md5, tc.page)
		if err != nil {
			t.Fatal(err)
		}
		if label != tc.label || !bytes.HasPrefix(data, []byte("%PDF-")) || len(data) >= len(pdf)+1000 {
			t.Errorf("page %d: label %q, %d bytes starting %q; want %q and a PDF", tc.page, label, len(data), data[:min(8, len(data))], tc.label)
		}
		if _, ok := cache.Get(PDFKey(md5, tc.page)); !ok {
			t.Errorf("page %d: the PDF is not cached", tc.page)
		}
	}
}

// Forget removes the pages of a document whose original is gone, and
// keeps those of one still kept.
func TestForget(t *testing.T) {
	s, cache, d := newService(t, &engine{pages: 1}, []byte("%PDF-"), 0)
	other := strings.Repeat("e", 32)
	for _, key := range []string{PNGKey(md5, 1, 200), PDFKey(md5, 1), PNGKey(other, 1, 200), PDFKey(other, 1)} {
		_ = cache.Put(key, []byte("x"))
	}
	s.Forget(md5)
	s.Forget(other)
	if len(cache.data) != 2 {
		t.Fatalf("after Forget of a kept and a gone original: %d pages cached, want the kept one's 2", len(cache.data))
	}
	if err := os.Remove(filepath.Join(d, md5)); err != nil {
		t.Fatal(err)
	}
	s.Forget(md5)
	if len(cache.data) != 0 {
		t.Errorf("%d pages cached after the original went, want 0", len(cache.data))
	}
}
