package notify

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ErrGone is wrapped by Push.Send when the push service answers 404 or 410:
// the subscription no longer exists and the caller deletes it.
var ErrGone = errors.New("push subscription is gone")

// ErrForbiddenAddress is wrapped when a URL's host is, or resolves to, an
// address that deliveries may not reach (loopback, private, link-local,
// unspecified, multicast and the like) and private addresses are not
// allowed.
var ErrForbiddenAddress = errors.New("address not allowed")

// StatusError is a receiver's HTTP answer other than 2xx. It carries no
// body: a receiver may echo what it was sent, tokens included.
type StatusError struct {
	// Channel is "push" or "webhook"; Host is the receiver's host (never
	// the path, which may be a capability).
	Channel, Host string
	// Code is the HTTP status.
	Code int
	// RetryAfter is the receiver's Retry-After in seconds form, when it
	// sent one (429, 503); zero otherwise.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s to %s: HTTP %d %s", e.Channel, e.Host, e.Code, http.StatusText(e.Code))
}

// permanentError marks a failure that retrying cannot mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// permanent marks err as one that retrying cannot mend.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// Permanent tells whether retrying the delivery that failed with err cannot
// help: an HTTP 4xx answer other than 408 and 429 (or a 3xx that was not
// followed), ErrGone, a forbidden or malformed address, a refused
// redirect, a certificate that does not verify, an SMTP 5xx reply, a bad
// recipient or a configuration the server cannot work with. It is false
// for nil, HTTP 5xx, 408 and 429, SMTP 4xx, timeouts, refused connections,
// a cancelled context and anything it does not know.
func Permanent(err error) bool {
	if err == nil {
		return false
	}
	var p *permanentError
	if errors.Is(err, ErrGone) || errors.Is(err, ErrForbiddenAddress) || errors.As(err, &p) {
		return true
	}
	var s *StatusError
	if errors.As(err, &s) {
		return s.Code >= 300 && s.Code < 500 &&
			s.Code != http.StatusRequestTimeout && s.Code != http.StatusTooManyRequests
	}
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) ||
		errors.As(err, &hostname) || errors.As(err, &invalid)
}

// statusError builds the StatusError of resp.
func statusError(channel string, u *url.URL, resp *http.Response) *StatusError {
	e := &StatusError{Channel: channel, Host: u.Host, Code: resp.StatusCode}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// sendError rewrites an error of http.Client.Do so that it names only the
// receiver's host: *url.Error prints the whole URL, whose path can be a
// push subscription's capability or a secret ntfy topic.
func sendError(channel string, u *url.URL, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s to %s: %w", channel, u.Host, err)
}
