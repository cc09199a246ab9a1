package notify

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
)

func TestPermanent(t *testing.T) {
	status := func(code int) error { return &StatusError{Channel: "webhook", Host: "h", Code: code} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"400", status(400), true},
		{"401", status(401), true},
		{"403", status(403), true},
		{"404", status(404), true},
		{"408", status(408), false},
		{"413", status(413), true},
		{"429", status(429), false},
		{"500", status(500), false},
		{"502", status(502), false},
		{"503", status(503), false},
		{"wrapped 400", fmt.Errorf("sending: %w", status(400)), true},
		{"gone", fmt.Errorf("%w: %w", ErrGone, status(410)), true},
		{"forbidden address", &url.Error{Op: "Post", URL: "u", Err: &net.OpError{Op: "dial", Err: fmt.Errorf("%w: loopback address", ErrForbiddenAddress)}}, true},
		{"bad URL", permanent(errors.New("must be an http or https URL")), true},
		{"unknown authority", &url.Error{Op: "Post", URL: "u", Err: x509.UnknownAuthorityError{}}, true},
		{"refused connection", &url.Error{Op: "Post", URL: "u", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}, false},
		{"timeout", &url.Error{Op: "Post", URL: "u", Err: context.DeadlineExceeded}, false},
		{"unknown", errors.New("something"), false},
	}
	for _, tt := range tests {
		if got := Permanent(tt.err); got != tt.want {
			t.Errorf("%s: Permanent(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
