package systemtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"
)

// requestTimeout bounds every request of the tests: a request that has
// no answer by then counts as hung, which is a failure. It is generous
// (the race detector slows the service several times), so it only
// catches requests that would otherwise wait forever.
const requestTimeout = 20 * time.Second

// client talks to the service over HTTP.
type client struct {
	base string
	http *http.Client
}

func newClient(base string) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &client{base: base, http: &http.Client{Timeout: requestTimeout, Transport: tr}}
}

// answer is a response read to its end.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends the request; body "" sends none. headers are name, value pairs.
// The error is a transport error or a timeout: the service gave no answer.
func (c *client) do(method, path, body string, headers ...string) (answer, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		return answer{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.send(req)
}

// send sends req and reads the answer to its end.
func (c *client) send(req *http.Request) (answer, error) {
	res, err := c.http.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: read body: %w", req.Method, req.URL.Path, err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: b}, nil
}

// errorBody checks that an answer is the JSON error body of the
// contract and returns its code.
func errorBody(a answer) (string, error) {
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return "", fmt.Errorf("status %d with Content-Type %q, want JSON; body %.200s", a.status, ct, a.body)
	}
	var e struct{ Code, Message string }
	if err := json.Unmarshal(a.body, &e); err != nil || e.Code == "" || e.Message == "" {
		return "", fmt.Errorf("status %d: body %.200s is not {code, message}", a.status, a.body)
	}
	return e.Code, nil
}

// decode reads JSON keeping numbers as their literals.
func decode(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(dst)
}

// sameJSON reports whether two JSON objects hold the same members with the
// same values, number literals compared as written.
func sameJSON(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }

// idOf reads the id member of a decoded object.
func idOf(m map[string]any) string {
	n, _ := m["id"].(json.Number)
	return n.String()
}
