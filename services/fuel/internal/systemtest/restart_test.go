package systemtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Phases of the restart test.
const (
	phaseUp = iota
	phaseDown
	phaseBack
)

var phaseNames = [...]string{"before the restart", "while PostgreSQL was down", "after PostgreSQL came back"}

// refuelAttempt is one logical refuel a client tried to create.
type refuelAttempt struct {
	remark  string
	key     string // Idempotency-Key; "" for a plain POST, sent once
	body    string
	status  int    // of the last try; 0 when no try got an answer
	answer  []byte // of the 200
	tries   int
	vehicle string
}

// TestPostgresRestart stops PostgreSQL under load and starts it again. The
// service must keep answering (503 from /health, 5xx JSON errors, never a
// hang), recover on its own, and leave nothing committed twice or half:
// every refuel answered 200 is stored exactly once with the values sent,
// keyed retries create one record, and no more than one default vehicle
// exists.
func TestPostgresRestart(t *testing.T) {
	pg := startCluster(t)
	svc := startService(t, map[string]string{"DATABASE_URL": pg.createDatabase(t, "fuel")})
	c := newClient(svc.URL)

	var vehicles [2]string
	for i := range vehicles {
		a, err := c.do("POST", "/api/vehicles", fmt.Sprintf(`{"name":"restart %d","fuel_type":"diesel","default_vehicle":true}`, i))
		if err != nil || a.status != 200 {
			t.Fatalf("create vehicle: %v %d %s", err, a.status, a.body)
		}
		var v map[string]any
		if err := decode(a.body, &v); err != nil {
			t.Fatal(err)
		}
		vehicles[i] = idOf(v)
	}

	var (
		phase     atomic.Int32
		mu        sync.Mutex
		attempts  []*refuelAttempt
		failures  []string
		okByPhase [3]int
		failed5xx [3]int
		health    [3]map[int]int
	)
	for i := range health {
		health[i] = map[int]int{}
	}
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 50 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	// check classifies one answer of a write: 200, or a 5xx JSON error
	// (counted by phase); anything else, or no answer, is a failure.
	check := func(what string, a answer, err error) bool {
		p := phase.Load()
		if err != nil {
			fail("%s %s: no answer: %v", phaseNames[p], what, err)
			return false
		}
		if a.status == 200 {
			return true
		}
		code, berr := errorBody(a)
		switch {
		case berr != nil:
			fail("%s %s: %v", phaseNames[p], what, berr)
		case a.status < 500:
			fail("%s %s: status %d %s, want 200 or a 5xx while the database is away", phaseNames[p], what, a.status, a.body)
		default:
			_ = code
			mu.Lock()
			failed5xx[p]++
			mu.Unlock()
		}
		return false
	}

	stop := make(chan struct{})
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for n := 0; !stopped(); n++ {
				veh := vehicles[(w+n)%2]
				at := &refuelAttempt{
					remark:  fmt.Sprintf("restart c%d n%d", w, n),
					vehicle: veh,
				}
				at.body = fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":"2026-01-%02dT%02d:%02d:00Z","odometer":%d.5,`+
					`"fuel_type":"diesel","liters":%d.125,"total_amount":%d.37,"is_full":%t,"remark":%q}`,
					veh, 1+w, n/60%24, n%60, 1000+w*100000+n*10, 20+n%30, 30+n%50, n%3 == 0, at.remark)
				// Even clients send an Idempotency-Key and retry the same
				// request until it is answered 200: one record must come of
				// it however many tries the restart costs.
				if w%2 == 0 {
					at.key = fmt.Sprintf("restart-c%d-n%d", w, n)
				}
				mu.Lock()
				attempts = append(attempts, at)
				mu.Unlock()
				for {
					var hdr []string
					if at.key != "" {
						hdr = []string{"Idempotency-Key", at.key}
					}
					a, err := c.do("POST", "/api/refuels", at.body, hdr...)
					at.tries++
					if err == nil {
						at.status = a.status
					}
					if check("POST /api/refuels "+at.remark, a, err) {
						at.answer = a.body
						mu.Lock()
						okByPhase[phase.Load()]++
						mu.Unlock()
						break
					}
					if at.key == "" || stopped() {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}

				// Switching the default is a multi-statement transaction.
				if n%4 == 0 {
					a, err := c.do("POST", "/api/vehicles/"+vehicles[n%2]+"/default", "")
					check("POST /api/vehicles/:id/default", a, err)
				}

				a, err := c.do("GET", "/health", "")
				p := phase.Load()
				switch {
				case err != nil:
					fail("%s GET /health: no answer: %v", phaseNames[p], err)
				case a.status == 200 || a.status == 503:
					var h struct{ Status string }
					if derr := decode(a.body, &h); derr != nil || (a.status == 200) != (h.Status == "ok") ||
						(a.status == 503) != (h.Status == "unavailable") {
						fail("GET /health: %d %s", a.status, a.body)
					}
					mu.Lock()
					health[p][a.status]++
					mu.Unlock()
				default:
					fail("%s GET /health: status %d %s", phaseNames[p], a.status, a.body)
				}
				if a.status != 200 {
					time.Sleep(10 * time.Millisecond) // no busy loop while the database is away
				}
			}
		})
	}
	finish := func() {
		close(stop)
		wg.Wait()
	}

	// waitFor polls cond every 50 ms for at most limit.
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(deadline) {
				finish()
				t.Fatalf("%s: not within %s\nservice log:\n%s", what, limit, svc.Logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	successes := func(p int) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return okByPhase[p] >= 40
		}
	}
	waitFor("40 refuels stored before the restart", 60*time.Second, successes(phaseUp))

	phase.Store(phaseDown)
	if err := pg.stop(); err != nil {
		finish()
		t.Fatal(err)
	}
	healthIs := func(status int) func() bool {
		return func() bool {
			a, err := c.do("GET", "/health", "")
			return err == nil && a.status == status
		}
	}
	waitFor("/health answers 503 while PostgreSQL is down", 30*time.Second, healthIs(503))
	// Let the clients run into the outage for a while.
	waitFor("writes failing with 5xx while PostgreSQL is down", 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed5xx[phaseDown] >= 40
	})

	if err := pg.start(); err != nil {
		finish()
		t.Fatal(err)
	}
	waitFor("/health answers 200 after PostgreSQL is back", 60*time.Second, healthIs(200))
	phase.Store(phaseBack)
	waitFor("40 refuels stored after the restart", 60*time.Second, successes(phaseBack))
	finish()

	if err := svc.ExitErr(); err != nil {
		t.Fatalf("the service did not survive the restart: %v\n%s", err, svc.Logs())
	}
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("refuels answered 200 by phase %v; writes answered 5xx by phase %v; /health by phase %v",
		okByPhase, failed5xx, health)
	if failed5xx[phaseUp] > 0 || health[phaseUp][503] > 0 {
		t.Errorf("%d writes answered 5xx and /health answered 503 %d times before PostgreSQL was stopped",
			failed5xx[phaseUp], health[phaseUp][503])
	}
	if health[phaseDown][503] == 0 {
		t.Errorf("no client saw /health answer 503 while PostgreSQL was down")
	}

	checkStored(t, c, pg.url("fuel"), vehicles[:], attempts)
}

// storedRefuel is a row of the refuels table.
type storedRefuel struct {
	id                         int64
	vehicle                    int64
	remark                     string
	liters, amount, price, odo string
	isFull                     bool
	count                      int
}

// checkStored compares what the clients were answered with what the
// database holds, through the API and with SQL.
func checkStored(t *testing.T, c *client, dsn string, vehicles []string, attempts []*refuelAttempt) {
	t.Helper()
	// Through the API: every record of both vehicles, by remark.
	listed := map[string]map[string]any{}
	for _, v := range vehicles {
		a, err := c.do("GET", "/api/refuels?vehicle_id="+v, "")
		if err != nil || a.status != 200 {
			t.Fatalf("list refuels of %s: %v %d %s", v, err, a.status, a.body)
		}
		var rs []map[string]any
		if err := decode(a.body, &rs); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			remark, _ := r["remark"].(string)
			if _, dup := listed[remark]; dup {
				t.Errorf("refuel %q is listed twice: committed twice", remark)
			}
			listed[remark] = r
		}
	}

	// With SQL: the rows themselves.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT id, vehicle_id, remark, liters::text, total_amount::text, price_per_liter::text,
		odometer::text, is_full, count(*) OVER (PARTITION BY remark) FROM refuels`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]storedRefuel{}
	for rows.Next() {
		var r storedRefuel
		if err := rows.Scan(&r.id, &r.vehicle, &r.remark, &r.liters, &r.amount, &r.price, &r.odo, &r.isFull, &r.count); err != nil {
			t.Fatal(err)
		}
		if r.count != 1 {
			t.Errorf("refuel %q is stored %d times: committed twice", r.remark, r.count)
		}
		stored[r.remark] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(listed) {
		t.Errorf("the database holds %d refuels, the API lists %d", len(stored), len(listed))
	}

	sent := map[string]*refuelAttempt{}
	ok, ambiguousStored, ambiguousAbsent, keyedRetried := 0, 0, 0, 0
	for _, at := range attempts {
		sent[at.remark] = at
		row, isStored := stored[at.remark]
		if at.answer == nil {
			// No 200: either the transaction rolled back or its commit
			// outcome was lost with the connection. Both are fine, but
			// a keyed attempt only ends unanswered when the test stopped.
			if isStored {
				ambiguousStored++
			} else {
				ambiguousAbsent++
			}
			continue
		}
		ok++
		if at.tries > 1 {
			keyedRetried++
		}
		if !isStored {
			t.Errorf("refuel %q was answered 200 (after %d tries) but is not stored", at.remark, at.tries)
			continue
		}
		var answered map[string]any
		if err := decode(at.answer, &answered); err != nil {
			t.Fatalf("answer of %q: %v", at.remark, err)
		}
		if got := fmt.Sprint(row.id); got != idOf(answered) {
			t.Errorf("refuel %q: answered id %s, stored id %s", at.remark, idOf(answered), got)
		}
		if l := listed[at.remark]; !sameJSON(l, answered) {
			t.Errorf("refuel %q reads back as %v, the POST answered %v", at.remark, l, answered)
		}
	}
	// No half-written or foreign rows: each row is one that a client sent,
	// with its values whole and its unit price computed from them.
	for remark, row := range stored {
		at, ok := sent[remark]
		if !ok {
			t.Errorf("stored refuel %q (id %d) was never sent", remark, row.id)
			continue
		}
		var want struct {
			Liters, Amount, Odo json.Number
			IsFull              bool
		}
		var body map[string]any
		if err := decode([]byte(at.body), &body); err != nil {
			t.Fatal(err)
		}
		want.Liters, want.Amount, want.Odo = body["liters"].(json.Number), body["total_amount"].(json.Number), body["odometer"].(json.Number)
		want.IsFull = body["is_full"].(bool)
		if !sameNumber(row.liters, want.Liters.String()) || !sameNumber(row.amount, want.Amount.String()) ||
			!sameNumber(row.odo, want.Odo.String()) || row.isFull != want.IsFull || fmt.Sprint(row.vehicle) != at.vehicle {
			t.Errorf("refuel %q is stored as %+v, sent %s", remark, row, at.body)
		}
		if !sameNumber(row.price, roundHalfUp(ratOf(row.amount), ratOf(row.liters), 4).FloatString(4)) {
			t.Errorf("refuel %q: price_per_liter %s is not total_amount/liters rounded (%s / %s)", remark, row.price, row.amount, row.liters)
		}
	}
	var defaults int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM vehicles WHERE default_vehicle").Scan(&defaults); err != nil {
		t.Fatal(err)
	}
	if defaults > 1 {
		t.Errorf("%d default vehicles after the restart", defaults)
	}
	t.Logf("%d refuels answered 200 (%d of them keyed and retried across the outage), all stored once; "+
		"%d unanswered attempts: %d stored (commit outcome lost with the connection), %d not stored",
		ok, keyedRetried, ambiguousStored+ambiguousAbsent, ambiguousStored, ambiguousAbsent)
}

// ratOf reads a decimal literal exactly; it panics on a malformed one
// (the literals come from the database and the service).
func ratOf(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(fmt.Sprintf("not a decimal: %q", s))
	}
	return r
}

// sameNumber compares two decimal literals by value ("40.5" = "40.500").
func sameNumber(a, b string) bool {
	ra, oka := new(big.Rat).SetString(a)
	rb, okb := new(big.Rat).SetString(b)
	return oka && okb && ra.Cmp(rb) == 0
}

// roundHalfUp returns num/den rounded half-up to places decimal places
// (non-negative operands).
func roundHalfUp(num, den *big.Rat, places int) *big.Rat {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, new(big.Rat).SetInt(scale))
	q.Add(q, big.NewRat(1, 2))
	floor := new(big.Int).Quo(q.Num(), q.Denom()) // non-negative: Quo truncates = floor
	return new(big.Rat).SetFrac(floor, scale)
}
