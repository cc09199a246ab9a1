package ginx

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
)

// BindJSON decodes the request body, which must be exactly one JSON object,
// into dst. Unknown fields are ignored. Errors are *apperr.Error:
// INVALID_ARGUMENT naming the field for a wrong JSON type ("liters: must be
// a number"), INVALID_ARGUMENT for malformed or non-object bodies, and
// PAYLOAD_TOO_LARGE when a body limit was passed.
func BindJSON(c *gin.Context, dst any) error {
	return DecodeJSON(c.Request.Body, dst)
}

// DecodeJSON is BindJSON for any reader. The body is decoded once, straight
// into dst, by one json.Decoder reading r directly: a request's body has
// usually arrived whole, and the decoder's first read takes all of it into
// its 512-byte buffer. Its first non-blank byte is noted on the way, to
// tell a non-object body (an array, a string, null) from a malformed one.
// (A small bufio.Reader in front made the decoder's first read a few bytes
// long, and the decoder then grew its buffer threefold: 2.6 KB a POST
// refuel where 1.1 KB do.)
func DecodeJSON(r io.Reader, dst any) error {
	fr := &firstByteReader{r: r}
	dec := json.NewDecoder(fr)
	err := dec.Decode(dst)
	if fr.first != 0 && fr.first != '{' {
		return apperr.Invalid("", "request body must be a JSON object")
	}
	if err != nil {
		return decodeError(err)
	}
	// Exactly one value: anything but whitespace after it is an error.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return TooLarge(mbe.Limit)
		}
		return apperr.Invalid("", "request body must contain a single JSON object")
	}
	return nil
}

// firstByteReader passes r's bytes on and keeps the first one that is not
// JSON whitespace (0 until there is one).
type firstByteReader struct {
	r     io.Reader
	first byte
}

func (f *firstByteReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if f.first == 0 {
		for _, b := range p[:n] {
			if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
				f.first = b
				break
			}
		}
	}
	return n, err
}

func decodeError(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		mbe    *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mbe):
		return TooLarge(mbe.Limit)
	case errors.Is(err, io.EOF):
		return apperr.Invalid("", "request body must be a JSON object, got an empty body")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalid("", "malformed JSON: unexpected end of body")
	case errors.As(err, &syntax):
		return apperr.Invalid("", "malformed JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return apperr.Invalid("", "request body must be a JSON object")
		}
		return apperr.Invalid(typ.Field, "must be %s", jsonTypeName(typ.Type))
	default:
		var e *apperr.Error
		if errors.As(err, &e) {
			return e
		}
		return apperr.Invalid("", "invalid JSON body: %v", err)
	}
}

// jsonTypeName names the JSON type a Go type is decoded from.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return "a valid " + t.String()
	}
}
