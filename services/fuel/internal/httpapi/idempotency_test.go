package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// send is do with request headers and without failing the test, so that
// goroutines may use it.
func (s *server) send(method, path, body string, hdr map[string]string) (response, error) {
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	s.authorize(req)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}, err
}

// mustSend is send that fails the test on a transport error.
func (s *server) mustSend(method, path, body string, hdr map[string]string) response {
	s.tb.Helper()
	res, err := s.send(method, path, body, hdr)
	if err != nil {
		s.tb.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

// count returns the number of rows of a table.
func (s *server) count(table string) int64 {
	s.tb.Helper()
	n, err := s.store.CountRows(context.Background(), table)
	if err != nil {
		s.tb.Fatal(err)
	}
	return n
}

func TestIdempotencyKey(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		key := map[string]string{"Idempotency-Key": "vehicle-create-1"}
		body := `{"name":"Golf","fuel_type":"diesel"}`
		first := s.mustSend("POST", "/api/vehicles", body, key)
		if first.status != 200 || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d %v %s", first.status, first.header, first.body)
		}
		again := s.mustSend("POST", "/api/vehicles", body, key)
		if again.status != 200 || string(again.body) != string(first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("repeat: %d %s, want 200 %s replayed", again.status, again.body, first.body)
		}
		if n := s.count("vehicles"); n != 1 {
			t.Errorf("%d vehicles after a repeated create, want 1", n)
		}

		// Same key, another body: 400 naming the header, nothing created.
		errorBody(t, s.mustSend("POST", "/api/vehicles", `{"name":"Polo","fuel_type":"diesel"}`, key), 400, "INVALID_ARGUMENT", "Idempotency-Key")
		if n := s.count("vehicles"); n != 1 {
			t.Errorf("%d vehicles after a conflicting key, want 1", n)
		}

		// The key is scoped to method and path: the same key on refuels is new.
		vid := literal(object(t, first.body)["id"])
		rbody := `{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60}`
		r1 := s.mustSend("POST", "/api/refuels", rbody, key)
		r2 := s.mustSend("POST", "/api/refuels", rbody, key)
		if r1.status != 200 || r2.status != 200 || string(r1.body) != string(r2.body) {
			t.Fatalf("refuel create with key: %d %s / %d %s", r1.status, r1.body, r2.status, r2.body)
		}
		if n := s.count("refuels"); n != 1 {
			t.Errorf("%d refuels after a repeated create, want 1", n)
		}

		// A failed request stores nothing: the same key may be retried
		// with a corrected body.
		fix := map[string]string{"Idempotency-Key": "fix-me"}
		errorBody(t, s.mustSend("POST", "/api/vehicles", `{"name":"","fuel_type":"diesel"}`, fix), 400, "INVALID_ARGUMENT", "name")
		if res := s.mustSend("POST", "/api/vehicles", `{"name":"Fixed","fuel_type":"diesel"}`, fix); res.status != 200 {
			t.Fatalf("retry after a failed request: %d %s", res.status, res.body)
		}
		// A refuel naming an absent vehicle is refused and not stored
		// either (the check happens in the store, inside the transaction).
		missing := map[string]string{"Idempotency-Key": "missing-vehicle"}
		errorBody(t, s.mustSend("POST", "/api/refuels", strings.Replace(rbody, `"vehicle_id":`+vid, `"vehicle_id":999`, 1), missing), 400, "INVALID_ARGUMENT", "vehicle_id")
		if res := s.mustSend("POST", "/api/refuels", strings.Replace(rbody, "1000", "1500", 1), missing); res.status != 200 {
			t.Fatalf("retry after a refused refuel: %d %s", res.status, res.body)
		}

		for _, bad := range []string{strings.Repeat("k", 129), "has space", "tab\tkey", "ünicode"} {
			errorBody(t, s.mustSend("POST", "/api/vehicles", body, map[string]string{"Idempotency-Key": bad}), 400, "INVALID_ARGUMENT", "Idempotency-Key")
		}
		if res := s.mustSend("POST", "/api/vehicles", body, map[string]string{"Idempotency-Key": strings.Repeat("~", 128)}); res.status != 200 {
			t.Errorf("128-character key: %d %s", res.status, res.body)
		}
	})
}

// TestIdempotencyKeyConcurrent sends one create with one key from many
// goroutines at once: exactly one record is created and every answer is
// the same 200.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	const clients = 40
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		body := `{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60}`
		for round := 0; round < 3; round++ {
			key := map[string]string{"Idempotency-Key": fmt.Sprintf("offline-queue-%d", round)}
			var (
				wg     sync.WaitGroup
				start  = make(chan struct{})
				bodies = make([]string, clients)
				errs   = make([]error, clients)
			)
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					res, err := s.send("POST", "/api/refuels", body, key)
					switch {
					case err != nil:
						errs[i] = err
					case res.status != 200:
						errs[i] = fmt.Errorf("status %d: %s", res.status, res.body)
					default:
						bodies[i] = string(res.body)
					}
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("client %d: %v", i, err)
				}
				if bodies[i] != bodies[0] {
					t.Errorf("client %d answered %s, client 0 %s", i, bodies[i], bodies[0])
				}
			}
			if n := s.count("refuels"); n != int64(round+1) {
				t.Fatalf("round %d: %d refuels, want %d", round, n, round+1)
			}
		}
	})
}

// TestIdempotencyKeyExpiry moves the store's clock past the 24 hours: the
// key counts as absent, and the purge removes the expired rows.
func TestIdempotencyKeyExpiry(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
		s.store.Now = func() time.Time { return now }
		key := map[string]string{"Idempotency-Key": "k1"}
		body := `{"name":"Golf","fuel_type":"diesel"}`
		first := s.mustSend("POST", "/api/vehicles", body, key)
		s.mustSend("POST", "/api/vehicles", `{"name":"Other","fuel_type":"diesel"}`, map[string]string{"Idempotency-Key": "k2"})

		now = now.Add(24*time.Hour - time.Second)
		if res := s.mustSend("POST", "/api/vehicles", body, key); string(res.body) != string(first.body) {
			t.Fatalf("within 24 h: %s, want the stored %s", res.body, first.body)
		}
		now = now.Add(2 * time.Second)
		res := s.mustSend("POST", "/api/vehicles", body, key)
		if res.status != 200 || string(res.body) == string(first.body) || res.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("after 24 h: %d %s, want a new vehicle", res.status, res.body)
		}
		if n := s.count("vehicles"); n != 3 {
			t.Errorf("%d vehicles, want 3", n)
		}
		// k1 was renewed just now; k2 has expired.
		n, err := s.store.PurgeIdempotencyKeys(context.Background(), now.Add(-24*time.Hour))
		if err != nil || n != 1 {
			t.Errorf("purge deleted %d (%v), want 1", n, err)
		}
		if n := s.count("idempotency_keys"); n != 1 {
			t.Errorf("%d keys left, want 1", n)
		}
	})
}
