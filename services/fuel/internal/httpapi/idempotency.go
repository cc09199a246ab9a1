package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// creator stores a decoded, checked create request through st and returns
// the response DTO.
type creator func(ctx context.Context, st fuel.Store) (any, error)

// IdempotencyHeader is the request header that makes a POST create
// idempotent.
const IdempotencyHeader = "Idempotency-Key"

// maxIdempotencyKey is the longest key accepted.
const maxIdempotencyKey = 128

// create serves a POST that creates a record. decode reads and checks the
// body; with an Idempotency-Key the creation runs through Store.Once, so a
// repeat with the same key and body answers the stored answer. A create
// whose request is not named by its body's bytes (an upload) reads the
// key itself and calls answerCreate.
func (a *API) create(c *gin.Context, decode func(io.Reader) (creator, error)) {
	key, ok, err := idempotencyKey(c.Request.Header)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if !ok {
		run, err := decode(c.Request.Body)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		a.answerCreate(c, "", "", run)
		return
	}
	raw, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			ginx.Fail(c, ginx.TooLarge(mbe.Limit))
			return
		}
		ginx.Fail(c, apperr.Invalid("", "request body could not be read"))
		return
	}
	// A body that fails validation is answered before the key is looked
	// at: only 2xx answers are stored, so such a request may be retried.
	run, err := decode(bytes.NewReader(raw))
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	sum := sha256.Sum256(raw)
	a.answerCreate(c, key, hex.EncodeToString(sum[:]), run)
}

// answerCreate runs run and answers what it returns. With a key (the
// request's Idempotency-Key; "" without one) run goes through Store.Once:
// a repeat of the same key and requestHash answers the stored answer and
// runs nothing. created reports whether run stored its record: false when
// it failed or when the answer is a replay.
func (a *API) answerCreate(c *gin.Context, key, requestHash string, run creator) (created bool) {
	ctx := c.Request.Context()
	create := func(st fuel.Store) (fuel.StoredAnswer, error) {
		out, err := run(ctx, st)
		if err != nil {
			return fuel.StoredAnswer{}, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return fuel.StoredAnswer{}, err
		}
		return fuel.StoredAnswer{Status: http.StatusOK, Body: b}, nil
	}
	var (
		ans      fuel.StoredAnswer
		replayed bool
		err      error
	)
	if key != "" {
		k := fuel.IdempotencyKey{Key: key, Method: c.Request.Method, Path: c.FullPath(), RequestHash: requestHash}
		ans, replayed, err = a.store.Once(ctx, k, create)
	} else {
		ans, err = create(a.store)
	}
	if err != nil {
		ginx.Fail(c, err)
		return false
	}
	if replayed {
		c.Header("Idempotent-Replayed", "true")
	}
	c.Data(ans.Status, "application/json; charset=utf-8", ans.Body)
	return !replayed
}

// idempotencyKey reads the Idempotency-Key header: 1..128 visible ASCII
// characters, given at most once.
func idempotencyKey(h http.Header) (string, bool, error) {
	vs := h.Values(IdempotencyHeader)
	switch {
	case len(vs) == 0:
		return "", false, nil
	case len(vs) > 1:
		return "", false, apperr.Invalid(IdempotencyHeader, "must be given at most once")
	}
	k := vs[0]
	if len(k) < 1 || len(k) > maxIdempotencyKey {
		return "", false, apperr.Invalid(IdempotencyHeader, "must be 1 to %d visible ASCII characters", maxIdempotencyKey)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return "", false, apperr.Invalid(IdempotencyHeader, "must be 1 to %d visible ASCII characters", maxIdempotencyKey)
		}
	}
	return k, true, nil
}
