package apperr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	tests := []struct {
		code Code
		want int
	}{
		{InvalidArgument, http.StatusBadRequest},
		{NotFound, http.StatusNotFound},
		{PayloadTooLarge, http.StatusRequestEntityTooLarge},
		{Internal, http.StatusInternalServerError},
		{Unavailable, http.StatusServiceUnavailable},
		{Conflict, http.StatusConflict},
		{Unauthorized, http.StatusUnauthorized},
		{Forbidden, http.StatusForbidden},
		{Code("SOMETHING_ELSE"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			if got := Status(tt.code); got != tt.want {
				t.Fatalf("Status(%s) = %d, want %d", tt.code, got, tt.want)
			}
		})
	}
}

func TestInvalidNamesField(t *testing.T) {
	err := Invalid("liters", "must be greater than %d", 0)
	if err.Code != InvalidArgument || err.Field != "liters" {
		t.Fatalf("got code %s field %q", err.Code, err.Field)
	}
	if err.Message != "liters: must be greater than 0" {
		t.Fatalf("message %q", err.Message)
	}
}

func TestFromKeepsCodeThroughWrapping(t *testing.T) {
	inner := New(NotFound, "vehicle 7 not found")
	wrapped := fmt.Errorf("loading: %w", inner)
	if got := From(wrapped); got != inner {
		t.Fatalf("From lost the *Error: %#v", got)
	}
}

func TestBodyOfHidesInternalCause(t *testing.T) {
	cause := errors.New("pq: password authentication failed for user secret")
	status, body := BodyOf(fmt.Errorf("query: %w", cause))
	if status != http.StatusInternalServerError || body.Code != Internal {
		t.Fatalf("got %d %s", status, body.Code)
	}
	if body.Message != "internal error" {
		t.Fatalf("internal cause leaked: %q", body.Message)
	}
	// Wrap keeps the cause reachable for the log.
	w := Wrap(Unavailable, cause, "database unavailable")
	if !errors.Is(w, cause) {
		t.Fatal("Wrap lost its cause")
	}
	status, body = BodyOf(w)
	if status != http.StatusServiceUnavailable || body.Message != "database unavailable" {
		t.Fatalf("got %d %q", status, body.Message)
	}
}

func TestBodyOfEmptyMessageGetsStatusText(t *testing.T) {
	_, body := BodyOf(&Error{Code: NotFound})
	if body.Message != "Not Found" {
		t.Fatalf("message %q", body.Message)
	}
}

func TestFromCancelledContextIsClientClosed(t *testing.T) {
	err := fmt.Errorf("read body: %w", context.Canceled)
	e := From(err)
	if e.Code != ClientClosed || !errors.Is(e, context.Canceled) {
		t.Fatalf("got %#v", e)
	}
	if Status(ClientClosed) != 499 {
		t.Fatalf("status %d", Status(ClientClosed))
	}
	// A deadline is not the client leaving.
	if got := From(context.DeadlineExceeded).Code; got != Internal {
		t.Fatalf("deadline mapped to %s", got)
	}
}

func TestInvalidCauseNamesFieldAndKeepsCause(t *testing.T) {
	cause := errors.New("permission denied")
	e := InvalidCause(cause, "file", "cannot be opened (%d)", 2)
	if e.Code != InvalidArgument || e.Field != "file" || e.Message != "file: cannot be opened (2)" || !errors.Is(e, cause) {
		t.Fatalf("got %#v", e)
	}
	if _, body := BodyOf(e); strings.Contains(body.Message, "permission") {
		t.Fatalf("the cause reached the client: %q", body.Message)
	}
}

// TestJoin: every invalid field in one message, in order; nothing wrong is
// nil; a failure that is not about the input is answered alone.
func TestJoin(t *testing.T) {
	if err := Join(nil, nil); err != nil {
		t.Errorf("Join of nils = %v, want nil", err)
	}
	one := Invalid("name", "is required")
	if err := Join(nil, one, nil); err != one {
		t.Errorf("Join of one = %v, want it unchanged", err)
	}
	cause := errors.New("strconv: bad digit")
	err := Join(Invalid("name", "is required"), nil, InvalidCause(cause, "liters", "must be a number"), Invalid("remark", "is too long"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Join = %T %v, want *Error", err, err)
	}
	if e.Code != InvalidArgument || e.Field != "name" || e.Message != "name: is required; liters: must be a number; remark: is too long" {
		t.Errorf("Join = %+v, want INVALID_ARGUMENT on name listing the three in order", e)
	}
	if !errors.Is(err, cause) {
		t.Errorf("Join lost the cause %v", cause)
	}
	internal := errors.New("disk full")
	if err := Join(Invalid("name", "is required"), internal); err != internal {
		t.Errorf("Join with a failure = %v, want the failure alone", err)
	}
	notFound := New(NotFound, "vehicle 3 not found")
	if err := Join(notFound, Invalid("name", "is required")); err != notFound {
		t.Errorf("Join with NOT_FOUND = %v, want it alone", err)
	}
}
