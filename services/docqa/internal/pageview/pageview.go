// Package pageview prepares single pages of a document's kept original for
// a reader: an image of the page (a PNG, 8-bit gray when the page is) and
// a one-page PDF (internal/pagecut) with the page's printed label. Each is
// made once however many ask for it at the same time, bounded in time, and
// cached under a key that names the document's bytes, the page and how it
// was drawn, so that the key is also the page's ETag.
//
// It knows no HTTP: internal/httpapi parses the page route, answers 304
// from the key, and maps the errors here (ErrNoPage, ErrBusy, ErrSlow,
// ErrUnreadable, os.ErrNotExist) to the contract's codes. The consumer
// interfaces (Engine, Cache, Originals) are declared here; pdftext's
// Engine, internal/pagecache and internal/originals implement them.
package pageview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/carhub/backend/services/docqa/internal/pagecut"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// Defaults of Config.
const (
	// DefaultWait is how long a page waits for the engine's page
	// instances before ErrBusy.
	DefaultWait = 5 * time.Second
	// DefaultBudget bounds a whole render or cut; past it the caller gets
	// ErrSlow while the work finishes and fills the cache for the retry.
	DefaultBudget = 20 * time.Second
)

// renderVersion is in every image's key: a change to how pages are drawn
// or encoded changes it, so that no client or cache keeps an image of the
// old kind.
const renderVersion = "r1"

// The errors of PNG and PDF, besides one wrapping os.ErrNotExist when the
// document's original is not kept and the caller's context error.
var (
	// ErrNoPage: the document has no such page.
	ErrNoPage = errors.New("no such page")
	// ErrBusy: every engine instance (or the cut's slot) stayed busy for
	// the whole Wait.
	ErrBusy = errors.New("too many pages are being prepared")
	// ErrSlow: the page took longer than the Budget; it is still being
	// prepared and will be cached.
	ErrSlow = errors.New("the page is still being prepared")
	// ErrUnreadable: the engine could not read a page of a document that
	// was read at ingestion: the engine's failure, not the reader's.
	ErrUnreadable = errors.New("the page could not be prepared")
)

// Engine draws single pages of a PDF and reads their labels (pdftext's
// Engine). Errors: pdftext's classes (ErrPageRange, ErrBusy when ctx ends
// before an engine instance is free, ErrCorrupt).
type Engine interface {
	Render(ctx context.Context, r io.ReaderAt, size int64, page, width int) (*image.RGBA, error)
	PageLabel(ctx context.Context, r io.ReaderAt, size int64, page int) (label string, pages int, err error)
}

// Cache keeps prepared pages by key (internal/pagecache).
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte) error
	RemovePrefix(prefix string)
}

// Originals opens the kept file of a document (internal/originals' Dir);
// an error wrapping os.ErrNotExist for one not kept.
type Originals interface {
	Open(md5 string) (*os.File, error)
}

// Config wires a Service.
type Config struct {
	Engine    Engine
	Originals Originals
	// Cache keeps prepared pages (nil: none kept).
	Cache Cache
	// Wait bounds a page's wait for the engine (default DefaultWait),
	// Budget its whole preparation (default DefaultBudget).
	Wait   time.Duration
	Budget time.Duration
	Log    *slog.Logger
}

// Service prepares pages; it is safe for concurrent use.
type Service struct {
	cfg Config
	// flight runs one render or cut per page at a time; cuts bounds the
	// pdfcpu cuts running at once.
	flight singleflight.Group
	cuts   chan struct{}
}

// New returns a Service; cfg.Engine and cfg.Originals are required.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Cache == nil {
		cfg.Cache = noCache{}
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	return &Service{cfg: cfg, cuts: make(chan struct{}, 1)}
}

// noCache stands for a Cache when none is configured.
type noCache struct{}

func (noCache) Get(string) ([]byte, bool) { return nil, false }
func (noCache) Put(string, []byte) error  { return nil }
func (noCache) RemovePrefix(string)       {}

// PNGKey is the key of PNG(md5, n, width): it never changes while the
// document exists, so it serves as the image's ETag.
func PNGKey(md5 string, n, width int) string {
	return fmt.Sprintf("%s-%d-w%d-%s.png", md5, n, width, renderVersion)
}

// PDFKey is the key (and ETag) of PDF(md5, n).
func PDFKey(md5 string, n int) string { return fmt.Sprintf("%s-%d.pdf", md5, n) }

// PNG returns page n (1-based) of document md5's original drawn width
// pixels wide (pdftext.MinRenderWidth..MaxRenderWidth), as a PNG.
func (s *Service) PNG(ctx context.Context, md5 string, n, width int) ([]byte, error) {
	return s.produce(ctx, md5, PNGKey(md5, n, width), func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		img, err := s.cfg.Engine.Render(wait, f, size, n, width)
		if err != nil {
			return nil, err
		}
		return encodePNG(img)
	})
}

// PDF returns page n (1-based) of document md5's original as a PDF of its
// own, and the page's printed label (its number when it has none).
func (s *Service) PDF(ctx context.Context, md5 string, n int) (data []byte, label string, err error) {
	key := PDFKey(md5, n)
	// The label names the file; reading it (PDFium) is far cheaper than
	// the cut, and answers a page out of range before any cut.
	data, err = s.produce(ctx, md5, key+".label", func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		l, _, err := s.cfg.Engine.PageLabel(wait, f, size, n)
		return []byte(l), err
	})
	if err != nil {
		return nil, "", err
	}
	label = string(data)
	if label == "" {
		label = strconv.Itoa(n)
	}
	data, err = s.produce(ctx, md5, key, func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		select {
		case s.cuts <- struct{}{}:
		case <-wait.Done():
			return nil, fmt.Errorf("%w (%v)", pdftext.ErrBusy, wait.Err())
		}
		defer func() { <-s.cuts }()
		out, _, err := pagecut.Cut(f, n)
		return out, err
	})
	if err != nil {
		return nil, "", err
	}
	return data, label, nil
}

// Forget removes the pages prepared from md5's original once the original
// is gone (it is kept while another owner's copy of the same file uses it,
// and so are they).
func (s *Service) Forget(md5 string) {
	f, err := s.cfg.Originals.Open(md5)
	if err == nil {
		f.Close()
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		s.cfg.Cache.RemovePrefix(md5 + "-")
	}
}

// produce answers the bytes cached under key, or makes them with fn (once
// for concurrent requests of one key) and caches them. fn opens nothing
// itself: it gets md5's original, and a context that bounds only its wait
// for a free engine (Wait). The work runs apart from the request: past
// Budget, or when ctx ends, the caller stops waiting but the work finishes
// and fills the cache, and the work holds its engine slot meanwhile, so
// the bound on concurrent work holds.
func (s *Service) produce(ctx context.Context, md5, key string, fn func(wait context.Context, f *os.File, size int64) ([]byte, error)) ([]byte, error) {
	if data, ok := s.cfg.Cache.Get(key); ok {
		return data, nil
	}
	ch := s.flight.DoChan(key, func() (any, error) {
		f, err := s.cfg.Originals.Open(md5)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		wait, cancel := context.WithTimeout(context.Background(), s.cfg.Wait)
		defer cancel()
		start := time.Now()
		data, err := fn(wait, f, st.Size())
		if err != nil {
			return nil, classify(err)
		}
		if err := s.cfg.Cache.Put(key, data); err != nil {
			s.cfg.Log.Warn("page not cached", "key", key, "err", err)
		}
		s.cfg.Log.Debug("page produced", "key", key, "bytes", len(data), "ms", time.Since(start).Milliseconds())
		return data, nil
	})
	timer := time.NewTimer(s.cfg.Budget)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]byte), nil
	case <-timer.C:
		return nil, fmt.Errorf("%w: past %s", ErrSlow, s.cfg.Budget)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// classify wraps the engine's and the cut's errors in this package's.
func classify(err error) error {
	switch {
	case errors.Is(err, pdftext.ErrPageRange), errors.Is(err, pagecut.ErrPageRange):
		return fmt.Errorf("%w: %w", ErrNoPage, err)
	case errors.Is(err, pdftext.ErrBusy):
		return fmt.Errorf("%w: %w", ErrBusy, err)
	case errors.Is(err, pdftext.ErrCorrupt), errors.Is(err, pagecut.ErrUnreadable):
		return fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return err
}

// encodePNG writes img as a PNG: as 8-bit gray when every pixel is gray
// (most pages of a manual: a third of the bytes of RGB), else as RGB (the
// image is opaque, so image/png leaves the alpha channel out), at
// BestSpeed (see proto-docs/docqa-decisions.md for what was measured).
func encodePNG(img *image.RGBA) ([]byte, error) {
	var src image.Image = img
	if gray, ok := toGray(img); ok {
		src = gray
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, src); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// toGray returns img as *image.Gray when all its pixels are gray.
func toGray(img *image.RGBA) (*image.Gray, bool) {
	b := img.Bounds()
	gray := image.NewGray(b)
	w := b.Dx()
	for y := range b.Dy() {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		out := gray.Pix[y*gray.Stride : y*gray.Stride+w]
		for x := range w {
			p := row[4*x : 4*x+4]
			if p[0] != p[1] || p[1] != p[2] {
				return nil, false
			}
			out[x] = p[0]
		}
	}
	return gray, true
}
