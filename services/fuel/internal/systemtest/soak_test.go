package systemtest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carhub/backend/pkg/pgtest"
)

// Soak shape: soakClients goroutines each send at most soakMaxRequests
// requests, for soakDuration() and on past it until they have sent
// soakMinRequests together.
const (
	soakClients     = 32
	soakMaxRequests = 5000
	soakMinRequests = 2000
	soakStable      = 4 // vehicles every client writes to; never deleted
	soakDurationEnv = "FUEL_SOAK_DURATION"
)

// soakDuration is 10 s, 5 s with -short; FUEL_SOAK_DURATION (a Go
// duration) overrides both, for a long run such as the minute this test
// once took in make test:
//
//	FUEL_SOAK_DURATION=1m go test -race -count=1 -run '^TestSoak$' ./services/fuel/internal/systemtest/
//
// 10 s under the race detector on a loaded 2-core machine made 2 626
// requests, every kind of operation among them (the rarest, the CSV
// import, 16 times), and every invariant is checked on whatever the
// clients did; soakMinRequests keeps a slower machine from checking less.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv(soakDurationEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("%s=%q: want a positive Go duration such as 2m", soakDurationEnv, v)
		}
		return d
	}
	if testing.Short() {
		return 5 * time.Second
	}
	return 10 * time.Second
}

// soak is the shared state of one soak run.
type soak struct {
	t      *testing.T
	c      *client
	stable []string // ids of the shared vehicles

	mu       sync.Mutex
	failures []string
	nfail    int
	counts   map[string]int // answers by "op status"
	server5x atomic.Int64
}

// record counts an answer and reports whether its status is one of want;
// a transport error, a 5xx or another status is a failure.
func (s *soak) record(op string, a answer, err error, want ...int) bool {
	if err != nil {
		s.failf("%s: no answer: %v", op, err)
		return false
	}
	s.mu.Lock()
	s.counts[fmt.Sprintf("%s %d", op, a.status)]++
	s.mu.Unlock()
	if a.status >= 500 {
		s.server5x.Add(1)
	}
	if !slices.Contains(want, a.status) {
		s.failf("%s: status %d, want %v; body %.300s", op, a.status, want, a.body)
		return false
	}
	if a.status >= 400 {
		if _, err := errorBody(a); err != nil {
			s.failf("%s: %v", op, err)
			return false
		}
	}
	return true
}

func (s *soak) failf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nfail++
	if len(s.failures) < 40 {
		s.failures = append(s.failures, fmt.Sprintf(format, args...))
	}
}

// worker is one soak client. It owns the refuels it creates and the churn
// vehicles it creates: nobody else changes them, so it knows exactly what
// every read of them must answer.
type worker struct {
	s     *soak
	n     int
	rng   *rand.Rand
	mine  map[string]map[string]any // refuel id -> the last answer about it
	churn []string                  // own vehicles, deleted at will
	times []string                  // refuel times used, reused now and then
	seq   int
}

// TestSoak runs 32 concurrent clients mixing every fuel endpoint against the
// real binary on PostgreSQL, then checks the invariants: no 5xx and no
// unexpected status, at most one default vehicle at every listing and at
// the end, every record reads back as its last write answered, the records
// listed are exactly those the clients hold, and each vehicle's statistics
// equal a recomputation from its listed records (proto-docs/contract.md, "Statistics", independently
// implemented here).
func TestSoak(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	svc := startService(t, map[string]string{"DATABASE_URL": dsn})
	s := &soak{t: t, c: newClient(svc.URL), counts: map[string]int{}}
	for i := range soakStable {
		a, err := s.c.do("POST", "/api/vehicles", fmt.Sprintf(`{"name":"stable %d","fuel_type":"gasoline","default_vehicle":%t}`, i, i == 0))
		if err != nil || a.status != 200 {
			t.Fatalf("create vehicle: %v %d %s", err, a.status, a.body)
		}
		var v map[string]any
		if err := decode(a.body, &v); err != nil {
			t.Fatal(err)
		}
		s.stable = append(s.stable, idOf(v))
	}

	duration := soakDuration(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("soak: %d clients, %s and at least %d requests, at most %d requests each, seed %d", soakClients, duration, soakMinRequests, soakMaxRequests, seed)
	deadline := time.Now().Add(duration)
	workers := make([]*worker, soakClients)
	var wg sync.WaitGroup
	var total atomic.Int64
	for i := range workers {
		w := &worker{s: s, n: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), mine: map[string]map[string]any{}}
		workers[i] = w
		wg.Go(func() {
			for n := 0; n < soakMaxRequests && (time.Now().Before(deadline) || total.Load() < soakMinRequests); n++ {
				w.step()
				total.Add(1)
			}
		})
	}
	wg.Wait()
	if err := svc.ExitErr(); err != nil {
		t.Fatalf("the service died during the soak: %v\n%s", err, svc.Logs())
	}
	t.Logf("soak: %d operations; answers: %v", total.Load(), s.counts)
	for _, f := range s.failures {
		t.Error(f)
	}
	if s.nfail > len(s.failures) {
		t.Errorf("... and %d more failures", s.nfail-len(s.failures))
	}
	if n := s.server5x.Load(); n > 0 {
		t.Errorf("%d answers were 5xx", n)
	}
	s.checkFinal(workers, dsn)
}

// step does one randomly chosen operation.
func (w *worker) step() {
	ops := []struct {
		weight int
		fn     func()
	}{
		{25, w.createRefuel},
		{8, w.getRefuel},
		{8, w.updateRefuel},
		{4, w.deleteRefuel},
		{10, w.listRefuels},
		{8, w.statistics},
		{3, w.monthly},
		{2, w.exportCSV},
		{1, w.importCSV},
		{6, w.listVehicles},
		{4, w.getVehicle},
		{3, w.createVehicle},
		{4, w.updateVehicle},
		{5, w.setDefault},
		{2, w.deleteVehicle},
		{2, w.health},
		{3, w.invalid},
	}
	sum := 0
	for _, o := range ops {
		sum += o.weight
	}
	r := w.rng.IntN(sum)
	for _, o := range ops {
		if r < o.weight {
			o.fn()
			return
		}
		r -= o.weight
	}
}

// anyVehicle is a stable vehicle or, now and then, an own churn vehicle.
func (w *worker) anyVehicle() string {
	if len(w.churn) > 0 && w.rng.IntN(4) == 0 {
		return w.churn[w.rng.IntN(len(w.churn))]
	}
	return w.s.stable[w.rng.IntN(len(w.s.stable))]
}

// ownRefuel picks one of the worker's refuels ("" when it has none).
func (w *worker) ownRefuel() string {
	if len(w.mine) == 0 {
		return ""
	}
	ids := make([]string, 0, len(w.mine))
	for id := range w.mine {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids[w.rng.IntN(len(ids))]
}

// refuelTime is a time in 2025 on a minute; one in twenty repeats an
// earlier one, so that equal times (ordered by id) are common enough.
func (w *worker) refuelTime() string {
	if len(w.times) > 0 && w.rng.IntN(20) == 0 {
		return w.times[w.rng.IntN(len(w.times))]
	}
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.rng.IntN(365*24*60)) * time.Minute)
	s := t.Format(time.RFC3339)
	w.times = append(w.times, s)
	return s
}

// odometerAt grows with the time (about 1 km an hour) with noise, so that
// most spans between full records are positive and some are not.
func (w *worker) odometerAt(ts string) string {
	t, _ := time.Parse(time.RFC3339, ts)
	km := t.Sub(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)).Hours() + float64(w.rng.IntN(40000))/1000
	return strconv.FormatFloat(km, 'f', 3, 64)
}

// decimal3 is a literal with three decimals in [lo, hi).
func (w *worker) decimal3(lo, hi int) string {
	v := lo*1000 + w.rng.IntN((hi-lo)*1000)
	return fmt.Sprintf("%d.%03d", v/1000, v%1000)
}

// soakEnergies are the energies a body may name; most bodies name none
// and get their vehicle's default.
var soakEnergies = []string{"gasoline", "diesel", "lpg", "electricity"}

// energyMember is "" (the vehicle's default) two times in three, else an
// energy member followed by a comma.
func (w *worker) energyMember() string {
	if w.rng.IntN(3) != 0 {
		return ""
	}
	return fmt.Sprintf(`"energy":%q,`, soakEnergies[w.rng.IntN(len(soakEnergies))])
}

// refuelBody is a valid creation body for vehicle.
func (w *worker) refuelBody(vehicle string) string {
	w.seq++
	ts := w.refuelTime()
	return fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":%q,"odometer":%s,"fuel_type":"95",%s"liters":%s,"total_amount":%s,`+
		`"station_name":"station %d","is_full":%t,"missed_previous":%t,"remark":"w%d r%d"}`,
		vehicle, ts, w.odometerAt(ts), w.energyMember(), w.decimal3(1, 70), w.decimal3(0, 140), w.rng.IntN(5),
		w.rng.IntN(10) < 7, w.rng.IntN(20) == 0, w.n, w.seq)
}

// adopt records an answered refuel as the worker's, after checking that
// it carries what was sent and a correctly computed unit price.
func (w *worker) adopt(op, sent string, body []byte) {
	var got, want map[string]any
	if err := decode(body, &got); err != nil {
		w.s.failf("%s: answer %s: %v", op, body, err)
		return
	}
	if sent != "" {
		if err := decode([]byte(sent), &want); err != nil {
			panic(err)
		}
		for k, v := range want {
			if !sameValue(got[k], v) {
				w.s.failf("%s: %s is %v in the answer, sent %v (answer %s)", op, k, got[k], v, body)
			}
		}
	}
	liters, _ := got["liters"].(json.Number)
	amount, _ := got["total_amount"].(json.Number)
	price, _ := got["price_per_liter"].(json.Number)
	if want := roundHalfUp(ratOf(amount.String()), ratOf(liters.String()), 4).FloatString(4); !sameNumber(price.String(), want) {
		w.s.failf("%s: price_per_liter %s, want %s = total_amount/liters rounded", op, price, want)
	}
	w.mine[idOf(got)] = got
}

// sameValue compares a member of an answer with the value sent: numbers
// and times by value.
func sameValue(got, sent any) bool {
	switch s := sent.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameNumber(g.String(), s.String())
	case string:
		g, ok := got.(string)
		if !ok {
			return false
		}
		if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
			tg, err := time.Parse(time.RFC3339Nano, g)
			return err == nil && tg.Equal(ts)
		}
		return g == s
	}
	return got == sent
}

func (w *worker) createRefuel() {
	vehicle := w.anyVehicle()
	body := w.refuelBody(vehicle)
	if w.rng.IntN(10) != 0 {
		a, err := w.s.c.do("POST", "/api/refuels", body)
		if w.s.record("POST /api/refuels", a, err, 200) {
			w.adopt("POST /api/refuels", body, a.body)
		}
		return
	}
	// With an Idempotency-Key, sent twice at once and once more after:
	// one record, the same answer each time.
	key := fmt.Sprintf("soak-w%d-%d", w.n, w.seq)
	var answers [3]answer
	var errs [3]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { answers[i], errs[i] = w.s.c.do("POST", "/api/refuels", body, "Idempotency-Key", key) })
	}
	wg.Wait()
	answers[2], errs[2] = w.s.c.do("POST", "/api/refuels", body, "Idempotency-Key", key)
	for i := range answers {
		if !w.s.record("POST /api/refuels (Idempotency-Key)", answers[i], errs[i], 200) {
			return
		}
	}
	var ids [3]string
	for i, a := range answers {
		var m map[string]any
		if err := decode(a.body, &m); err != nil {
			w.s.failf("idempotent create: %s: %v", a.body, err)
			return
		}
		ids[i] = idOf(m)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] || !bytes.Equal(answers[0].body, answers[2].body) {
		w.s.failf("Idempotency-Key %s: three sends answered ids %v: created more than once", key, ids)
		return
	}
	w.adopt("POST /api/refuels (Idempotency-Key)", body, answers[0].body)
}

func (w *worker) getRefuel() {
	id := w.ownRefuel()
	if id == "" {
		w.createRefuel()
		return
	}
	a, err := w.s.c.do("GET", "/api/refuels/"+id, "")
	if !w.s.record("GET /api/refuels/:id", a, err, 200) {
		return
	}
	var got map[string]any
	if err := decode(a.body, &got); err != nil || !sameJSON(got, w.mine[id]) {
		w.s.failf("GET /api/refuels/%s: %s, the last write answered %v", id, a.body, w.mine[id])
	}
}

func (w *worker) updateRefuel() {
	id := w.ownRefuel()
	if id == "" {
		w.createRefuel()
		return
	}
	var fields []string
	if w.rng.IntN(2) == 0 {
		fields = append(fields, `"liters":`+w.decimal3(1, 70))
	}
	if w.rng.IntN(2) == 0 {
		fields = append(fields, `"total_amount":`+w.decimal3(0, 140))
	}
	if w.rng.IntN(3) == 0 {
		fields = append(fields, fmt.Sprintf(`"is_full":%t`, w.rng.IntN(10) < 7))
	}
	if w.rng.IntN(6) == 0 {
		fields = append(fields, fmt.Sprintf(`"missed_previous":%t`, w.rng.IntN(3) == 0))
	}
	if w.rng.IntN(4) == 0 {
		ts := w.refuelTime()
		fields = append(fields, fmt.Sprintf(`"refuel_time":%q,"odometer":%s`, ts, w.odometerAt(ts)))
	}
	if w.rng.IntN(8) == 0 {
		// Move it to a vehicle of the worker's choice (its own or a stable one).
		fields = append(fields, `"vehicle_id":`+w.anyVehicle())
	}
	if m := w.energyMember(); m != "" && w.rng.IntN(2) == 0 {
		fields = append(fields, strings.TrimSuffix(m, ","))
	}
	fields = append(fields, fmt.Sprintf(`"station_name":"updated %d"`, w.rng.IntN(100)))
	body := "{" + strings.Join(fields, ",") + "}"
	a, err := w.s.c.do("PUT", "/api/refuels/"+id, body)
	if w.s.record("PUT /api/refuels/:id", a, err, 200) {
		w.adopt("PUT /api/refuels/:id", body, a.body)
	}
}

func (w *worker) deleteRefuel() {
	id := w.ownRefuel()
	if id == "" {
		return
	}
	a, err := w.s.c.do("DELETE", "/api/refuels/"+id, "")
	if !w.s.record("DELETE /api/refuels/:id", a, err, 204) {
		return
	}
	delete(w.mine, id)
	a, err = w.s.c.do("GET", "/api/refuels/"+id, "")
	w.s.record("GET /api/refuels/:id after DELETE", a, err, 404)
}

// listRefuels lists a vehicle's records with random filters, checks their
// order and bounds, and that every own record of the vehicle in the range is
// there exactly as last answered.
func (w *worker) listRefuels() {
	vehicle := w.anyVehicle()
	q := url.Values{"vehicle_id": {vehicle}}
	var start, end time.Time
	if w.rng.IntN(2) == 0 {
		q.Set("start_date", w.refuelTime())
		start, _ = time.Parse(time.RFC3339, q.Get("start_date"))
	}
	if w.rng.IntN(2) == 0 {
		q.Set("end_date", w.refuelTime())
		end, _ = time.Parse(time.RFC3339, q.Get("end_date"))
	}
	if !start.IsZero() && !end.IsZero() && start.After(end) {
		a, err := w.s.c.do("GET", "/api/refuels?"+q.Encode(), "")
		w.s.record("GET /api/refuels start after end", a, err, 400)
		return
	}
	paged := w.rng.IntN(4) == 0
	if paged {
		q.Set("limit", strconv.Itoa(1+w.rng.IntN(50)))
		q.Set("offset", strconv.Itoa(w.rng.IntN(20)))
	}
	a, err := w.s.c.do("GET", "/api/refuels?"+q.Encode(), "")
	if !w.s.record("GET /api/refuels", a, err, 200) {
		return
	}
	var rs []map[string]any
	if err := decode(a.body, &rs); err != nil || rs == nil {
		w.s.failf("GET /api/refuels?%s: %.200s is not an array: %v", q.Encode(), a.body, err)
		return
	}
	if limit, _ := strconv.Atoi(q.Get("limit")); paged && len(rs) > limit {
		w.s.failf("GET /api/refuels?%s: %d records, more than the limit", q.Encode(), len(rs))
	}
	listed := map[string]map[string]any{}
	var prev *sortKey
	for _, r := range rs {
		k, err := keyOf(r)
		if err != nil {
			w.s.failf("GET /api/refuels: %v", err)
			return
		}
		if prev != nil && !k.less(*prev) {
			w.s.failf("GET /api/refuels?%s: %v listed after %v: not refuel_time, id descending", q.Encode(), k, *prev)
		}
		prev = &k
		if fmt.Sprint(r["vehicle_id"]) != vehicle || (!start.IsZero() && k.t.Before(start)) || (!end.IsZero() && k.t.After(end)) {
			w.s.failf("GET /api/refuels?%s listed %v, outside the filter", q.Encode(), r)
		}
		listed[idOf(r)] = r
	}
	if paged {
		return
	}
	for id, r := range w.mine {
		if fmt.Sprint(r["vehicle_id"]) != vehicle {
			continue
		}
		k, _ := keyOf(r)
		if (!start.IsZero() && k.t.Before(start)) || (!end.IsZero() && k.t.After(end)) {
			continue
		}
		if got, ok := listed[id]; !ok || !sameJSON(got, r) {
			w.s.failf("GET /api/refuels?%s: own record %s listed as %v, last answered %v", q.Encode(), id, got, r)
		}
	}
}

func (w *worker) statistics() {
	a, err := w.s.c.do("GET", "/api/vehicles/"+w.anyVehicle()+"/statistics", "")
	if !w.s.record("GET /api/vehicles/:id/statistics", a, err, 200) {
		return
	}
	var st map[string]any
	if err := decode(a.body, &st); err != nil {
		w.s.failf("statistics: %s: %v", a.body, err)
	}
}

func (w *worker) monthly() {
	a, err := w.s.c.do("GET", "/api/vehicles/"+w.anyVehicle()+"/statistics/monthly?start_date=2025-03-01T00:00:00Z", "")
	if !w.s.record("GET /api/vehicles/:id/statistics/monthly", a, err, 200) {
		return
	}
	var ms []map[string]any
	if err := decode(a.body, &ms); err != nil || ms == nil {
		w.s.failf("monthly statistics: %.200s is not an array: %v", a.body, err)
	}
}

// exportCSV reads a vehicle's CSV export: a header and whole rows.
func (w *worker) exportCSV() {
	a, err := w.s.c.do("GET", "/api/vehicles/"+w.anyVehicle()+"/refuels.csv", "")
	if !w.s.record("GET /api/vehicles/:id/refuels.csv", a, err, 200) {
		return
	}
	rows, err := csv.NewReader(bytes.NewReader(a.body)).ReadAll()
	if err != nil || len(rows) == 0 || rows[0][0] != "id" {
		w.s.failf("CSV export: %v; %.200s", err, a.body)
	}
}

// importCSV imports three new records into an own vehicle and adopts them.
func (w *worker) importCSV() {
	if len(w.churn) == 0 {
		w.createVehicle()
		return
	}
	vehicle := w.churn[w.rng.IntN(len(w.churn))]
	var file bytes.Buffer
	cw := csv.NewWriter(&file)
	_ = cw.Write([]string{"refuel_time", "odometer", "fuel_type", "liters", "total_amount", "is_full", "missed_previous", "remark"})
	for range 3 {
		w.seq++
		ts := w.refuelTime()
		_ = cw.Write([]string{ts, w.odometerAt(ts), "95", w.decimal3(1, 70), w.decimal3(0, 140),
			strconv.FormatBool(w.rng.IntN(10) < 7), "false", fmt.Sprintf("w%d r%d imported", w.n, w.seq)})
	}
	cw.Flush()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "refuels.csv")
	_, _ = fw.Write(file.Bytes())
	_ = mw.Close()
	req, _ := http.NewRequest("POST", w.s.c.base+"/api/vehicles/"+vehicle+"/refuels/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	a, err := w.s.c.send(req)
	if !w.s.record("POST /api/vehicles/:id/refuels/import", a, err, 200) {
		return
	}
	var res struct{ Imported, Skipped, Rows int }
	if err := decode(a.body, &res); err != nil || res.Rows != 3 || res.Imported+res.Skipped != 3 {
		w.s.failf("import: answer %s: %v", a.body, err)
		return
	}
	// Adopt what appeared in the vehicle.
	a, err = w.s.c.do("GET", "/api/refuels?vehicle_id="+vehicle, "")
	if !w.s.record("GET /api/refuels", a, err, 200) {
		return
	}
	var rs []map[string]any
	if err := decode(a.body, &rs); err != nil {
		w.s.failf("list after import: %v", err)
		return
	}
	adopted := 0
	for _, r := range rs {
		if _, ok := w.mine[idOf(r)]; !ok {
			w.mine[idOf(r)] = r
			adopted++
		}
	}
	if adopted != res.Imported {
		w.s.failf("import answered %d imported, %d new records appeared in vehicle %s", res.Imported, adopted, vehicle)
	}
}

func (w *worker) listVehicles() {
	a, err := w.s.c.do("GET", "/api/vehicles", "")
	if !w.s.record("GET /api/vehicles", a, err, 200) {
		return
	}
	var vs []map[string]any
	if err := decode(a.body, &vs); err != nil {
		w.s.failf("GET /api/vehicles: %v", err)
		return
	}
	defaults := 0
	for i, v := range vs {
		if v["default_vehicle"] == true {
			defaults++
			if i != 0 {
				w.s.failf("GET /api/vehicles: the default vehicle is listed at %d, not first", i)
			}
		}
	}
	if defaults > 1 {
		w.s.failf("GET /api/vehicles: %d default vehicles at once", defaults)
	}
	for _, id := range w.churn {
		if !slices.ContainsFunc(vs, func(v map[string]any) bool { return idOf(v) == id }) {
			w.s.failf("GET /api/vehicles: own vehicle %s is missing", id)
		}
	}
}

func (w *worker) getVehicle() {
	a, err := w.s.c.do("GET", "/api/vehicles/"+w.anyVehicle(), "")
	w.s.record("GET /api/vehicles/:id", a, err, 200)
}

func (w *worker) createVehicle() {
	if len(w.churn) >= 3 {
		w.deleteVehicle()
		return
	}
	def := w.rng.IntN(4) == 0
	a, err := w.s.c.do("POST", "/api/vehicles", fmt.Sprintf(`{"name":"churn w%d","brand":"b","fuel_type":"diesel","tank_capacity":55.5,"default_vehicle":%t}`, w.n, def))
	if !w.s.record("POST /api/vehicles", a, err, 200) {
		return
	}
	var v map[string]any
	if err := decode(a.body, &v); err != nil || v["default_vehicle"] != def {
		w.s.failf("POST /api/vehicles: answer %s (default %t sent)", a.body, def)
		return
	}
	w.churn = append(w.churn, idOf(v))
}

func (w *worker) updateVehicle() {
	id := w.anyVehicle()
	body := fmt.Sprintf(`{"model":"m%d"}`, w.rng.IntN(1000))
	switch w.rng.IntN(4) {
	case 0:
		body = fmt.Sprintf(`{"model":"m%d","default_vehicle":true}`, w.rng.IntN(1000))
	case 1:
		body = `{"default_vehicle":false,"current_odometer":12345.5}`
	}
	a, err := w.s.c.do("PUT", "/api/vehicles/"+id, body)
	w.s.record("PUT /api/vehicles/:id", a, err, 200)
}

func (w *worker) setDefault() {
	a, err := w.s.c.do("POST", "/api/vehicles/"+w.anyVehicle()+"/default", "")
	if !w.s.record("POST /api/vehicles/:id/default", a, err, 200) {
		return
	}
	var v map[string]any
	if err := decode(a.body, &v); err != nil || v["default_vehicle"] != true {
		w.s.failf("POST /api/vehicles/:id/default answered %s", a.body)
	}
}

// deleteVehicle deletes an own vehicle: its records go with it.
func (w *worker) deleteVehicle() {
	if len(w.churn) == 0 {
		return
	}
	i := w.rng.IntN(len(w.churn))
	id := w.churn[i]
	a, err := w.s.c.do("DELETE", "/api/vehicles/"+id, "")
	if !w.s.record("DELETE /api/vehicles/:id", a, err, 204) {
		return
	}
	w.churn = slices.Delete(w.churn, i, i+1)
	for rid, r := range w.mine {
		if fmt.Sprint(r["vehicle_id"]) == id {
			delete(w.mine, rid)
		}
	}
	a, err = w.s.c.do("GET", "/api/vehicles/"+id, "")
	w.s.record("GET /api/vehicles/:id after DELETE", a, err, 404)
	a, err = w.s.c.do("GET", "/api/refuels?vehicle_id="+id, "")
	if w.s.record("GET /api/refuels of a deleted vehicle", a, err, 200) && strings.TrimSpace(string(a.body)) != "[]" {
		w.s.failf("the records of deleted vehicle %s are still listed: %.200s", id, a.body)
	}
}

func (w *worker) health() {
	a, err := w.s.c.do("GET", "/health", "")
	w.s.record("GET /health", a, err, 200)
}

// invalid sends requests that must be refused with a 4xx JSON error.
func (w *worker) invalid() {
	switch w.rng.IntN(4) {
	case 0:
		a, err := w.s.c.do("POST", "/api/refuels", strings.Replace(w.refuelBody(w.anyVehicle()), `"liters":`, `"liters":0,"x":`, 1))
		w.s.record("POST /api/refuels liters 0", a, err, 400)
	case 1:
		a, err := w.s.c.do("GET", "/api/vehicles/abc", "")
		w.s.record("GET /api/vehicles/abc", a, err, 400)
	case 2:
		a, err := w.s.c.do("GET", "/api/refuels/9223372036854775807", "")
		w.s.record("GET /api/refuels/:id absent", a, err, 404)
	case 3:
		a, err := w.s.c.do("PUT", "/api/vehicles/"+w.anyVehicle(), `{"fuel_type":"steam"}`)
		w.s.record("PUT /api/vehicles/:id bad fuel_type", a, err, 400)
	}
}

// sortKey orders records as the listing does.
type sortKey struct {
	t  time.Time
	id uint64
}

// less reports whether k comes strictly before o in (refuel_time, id)
// order; the listing is in the opposite order.
func (k sortKey) less(o sortKey) bool {
	if !k.t.Equal(o.t) {
		return k.t.Before(o.t)
	}
	return k.id < o.id
}

func keyOf(r map[string]any) (sortKey, error) {
	ts, _ := r["refuel_time"].(string)
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return sortKey{}, fmt.Errorf("refuel_time %q: %v", ts, err)
	}
	id, err := strconv.ParseUint(idOf(r), 10, 64)
	if err != nil {
		return sortKey{}, fmt.Errorf("id %v: %v", r["id"], err)
	}
	return sortKey{t: t, id: id}, nil
}

// checkFinal compares the final state with what the workers hold.
func (s *soak) checkFinal(workers []*worker, dsn string) {
	t := s.t
	held := map[string]map[string]any{}
	for _, w := range workers {
		for id, r := range w.mine {
			held[id] = r
		}
	}
	a, err := s.c.do("GET", "/api/vehicles", "")
	if err != nil || a.status != 200 {
		t.Fatalf("GET /api/vehicles: %v %d %s", err, a.status, a.body)
	}
	var vs []map[string]any
	if err := decode(a.body, &vs); err != nil {
		t.Fatal(err)
	}
	defaults := 0
	listedTotal := 0
	seen := map[string]bool{}
	for _, v := range vs {
		if v["default_vehicle"] == true {
			defaults++
		}
		id := idOf(v)
		a, err := s.c.do("GET", "/api/refuels?vehicle_id="+id, "")
		if err != nil || a.status != 200 {
			t.Fatalf("list refuels of %s: %v %d", id, err, a.status)
		}
		var rs []map[string]any
		if err := decode(a.body, &rs); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			rid := idOf(r)
			seen[rid] = true
			if h, ok := held[rid]; !ok {
				t.Errorf("vehicle %s lists record %s that no client holds: %v", id, rid, r)
			} else if !sameJSON(h, r) {
				t.Errorf("record %s lists as %v, its last write answered %v", rid, r, h)
			}
		}
		listedTotal += len(rs)
		a, err = s.c.do("GET", "/api/vehicles/"+id+"/statistics", "")
		if err != nil || a.status != 200 {
			t.Fatalf("statistics of %s: %v %d %s", id, err, a.status, a.body)
		}
		var got map[string]any
		if err := decode(a.body, &got); err != nil {
			t.Fatal(err)
		}
		fuelType, _ := v["fuel_type"].(string)
		want, err := recompute(rs, fuelType)
		if err != nil {
			t.Fatalf("vehicle %s: %v", id, err)
		}
		got["by_energy"] = renderByEnergy(got["by_energy"])
		for k, v := range want {
			if !sameValue(got[k], v) {
				t.Errorf("vehicle %s (%d records): statistics %s = %v, recomputed from the listed records %v", id, len(rs), k, got[k], v)
			}
		}
		if len(rs) > 0 {
			last, _ := got["last_refuel"].(map[string]any)
			if wantLast := lastOf(rs); !sameJSON(last, wantLast) {
				t.Errorf("vehicle %s: last_refuel %v, want %v", id, last, wantLast)
			}
		} else if got["last_refuel"] != nil {
			t.Errorf("vehicle %s without records: last_refuel %v, want null", id, got["last_refuel"])
		}
	}
	if defaults > 1 {
		t.Errorf("%d default vehicles after the soak", defaults)
	}
	for id := range held {
		if !seen[id] {
			t.Errorf("record %s, held by a client, is not listed under any vehicle", id)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, dbDefaults int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM refuels), (SELECT count(*) FROM vehicles WHERE default_vehicle)").Scan(&rows, &dbDefaults); err != nil {
		t.Fatal(err)
	}
	if rows != listedTotal || rows != len(held) || dbDefaults > 1 {
		t.Errorf("totals: %d refuel rows in the database, %d listed, %d held by the clients; %d defaults",
			rows, listedTotal, len(held), dbDefaults)
	}
	t.Logf("soak end: %d vehicles, %d refuels, %d default", len(vs), rows, dbDefaults)
}

// lastOf is the record a listing would show first: the latest refuel_time,
// then the highest id.
func lastOf(rs []map[string]any) map[string]any {
	var best map[string]any
	var bestKey sortKey
	for _, r := range rs {
		k, _ := keyOf(r)
		if best == nil || bestKey.less(k) {
			best, bestKey = r, k
		}
	}
	return best
}

// recompute is the statistics of proto-docs/contract.md over listed records, written
// independently of the service: each energy its own tank, exact
// rationals, means rounded half-up to 4 places at the end. The answer maps
// the contract's fields (of the main energy, proto-docs/fuel-decisions.md), the sample
// count, main_energy and by_energy (rendered by renderByEnergy) to their
// expected values.
func recompute(rs []map[string]any, vehicleFuelType string) (map[string]any, error) {
	type rec struct {
		key                        sortKey
		energy                     string
		odo, liters, amount, price *big.Rat
		full, missed               bool
	}
	recs := make([]rec, 0, len(rs))
	num := func(r map[string]any, k string) (*big.Rat, error) {
		n, ok := r[k].(json.Number)
		if !ok {
			return nil, fmt.Errorf("record %s: %s is %v, not a number", idOf(r), k, r[k])
		}
		v, ok := new(big.Rat).SetString(n.String())
		if !ok {
			return nil, fmt.Errorf("record %s: %s = %s", idOf(r), k, n)
		}
		return v, nil
	}
	for _, r := range rs {
		var x rec
		var err error
		if x.key, err = keyOf(r); err != nil {
			return nil, err
		}
		for k, dst := range map[string]**big.Rat{"odometer": &x.odo, "liters": &x.liters, "total_amount": &x.amount, "price_per_liter": &x.price} {
			if *dst, err = num(r, k); err != nil {
				return nil, err
			}
		}
		x.energy, _ = r["energy"].(string)
		x.full, _ = r["is_full"].(bool)
		x.missed, _ = r["missed_previous"].(bool)
		recs = append(recs, x)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].key.less(recs[j].key) })

	zero := func() *big.Rat { return new(big.Rat) }
	type tank struct {
		energy                       string
		n, samples                   int
		liters, amount, prices       *big.Rat
		cons, cost, sampled, sampleD *big.Rat
		sampledAmount                *big.Rat
		ref                          *rec // the previous full record P; nil when there is none
		spanLiters, spanAmount       *big.Rat
	}
	tanks := map[string]*tank{}
	total := zero()
	for i := range recs {
		r := &recs[i]
		total.Add(total, r.amount)
		tk := tanks[r.energy]
		if tk == nil {
			tk = &tank{energy: r.energy, liters: zero(), amount: zero(), prices: zero(), cons: zero(), cost: zero(),
				sampled: zero(), sampleD: zero(), sampledAmount: zero(), spanLiters: zero(), spanAmount: zero()}
			tanks[r.energy] = tk
		}
		tk.n++
		tk.liters.Add(tk.liters, r.liters)
		tk.amount.Add(tk.amount, r.amount)
		tk.prices.Add(tk.prices, r.price)
		if r.missed {
			// Fill-ups were missed before r: the open span is dropped; a
			// full r is the next reference, a partial one leaves none.
			tk.spanLiters, tk.spanAmount = zero(), zero()
			tk.ref = nil
			if r.full {
				tk.ref = r
			}
			continue
		}
		if tk.ref != nil {
			tk.spanLiters.Add(tk.spanLiters, r.liters)
			tk.spanAmount.Add(tk.spanAmount, r.amount)
		}
		if !r.full {
			continue
		}
		if tk.ref != nil {
			dist := new(big.Rat).Sub(r.odo, tk.ref.odo)
			if dist.Sign() > 0 {
				c := new(big.Rat).Quo(tk.spanLiters, dist)
				tk.cons.Add(tk.cons, c.Mul(c, big.NewRat(100, 1)))
				tk.cost.Add(tk.cost, new(big.Rat).Quo(tk.spanAmount, dist))
				tk.sampled.Add(tk.sampled, tk.spanLiters)
				tk.sampledAmount.Add(tk.sampledAmount, tk.spanAmount)
				tk.sampleD.Add(tk.sampleD, dist)
				tk.samples++
			}
		}
		tk.ref = r
		tk.spanLiters, tk.spanAmount = zero(), zero()
	}
	mean := func(sum *big.Rat, n int) json.Number {
		if n == 0 {
			return "0"
		}
		return json.Number(roundHalfUp(sum, big.NewRat(int64(n), 1), 4).FloatString(4))
	}
	order := make([]*tank, 0, len(tanks))
	for _, tk := range tanks {
		order = append(order, tk)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].n != order[j].n {
			return order[i].n > order[j].n
		}
		return order[i].energy < order[j].energy
	})
	def := map[string]string{"diesel": "diesel", "electric": "electricity"}[vehicleFuelType]
	if def == "" {
		def = "gasoline"
	}
	var main *tank
	if tanks[def] != nil {
		main = tanks[def]
	} else if len(order) > 0 {
		main = order[0]
	}
	units := map[string]string{"gasoline": "l", "diesel": "l", "lpg": "l", "cng": "kg", "electricity": "kWh", "hydrogen": "kg"}
	var byEnergy []string
	for _, tk := range order {
		weighted, weightedCost := json.Number("0"), json.Number("0")
		if tk.sampleD.Sign() > 0 {
			weighted = json.Number(roundHalfUp(new(big.Rat).Mul(tk.sampled, big.NewRat(100, 1)), tk.sampleD, 4).FloatString(4))
			weightedCost = json.Number(roundHalfUp(tk.sampledAmount, tk.sampleD, 4).FloatString(4))
		}
		f4 := func(n json.Number) string {
			r, _ := new(big.Rat).SetString(n.String())
			return r.FloatString(4)
		}
		byEnergy = append(byEnergy, fmt.Sprintf("%s %s %d %s %s %s %s %s %s %s %d", tk.energy, units[tk.energy], tk.n,
			tk.liters.FloatString(3), tk.amount.FloatString(3), f4(mean(tk.prices, tk.n)), f4(mean(tk.cons, tk.samples)),
			f4(weighted), f4(mean(tk.cost, tk.samples)), f4(weightedCost), tk.samples))
	}
	want := map[string]any{
		"total_records":       json.Number(strconv.Itoa(len(recs))),
		"total_amount":        json.Number(total.FloatString(3)),
		"total_liters":        json.Number("0"),
		"avg_price":           json.Number("0"),
		"avg_consumption":     json.Number("0"),
		"cost_per_km":         json.Number("0"),
		"consumption_samples": json.Number("0"),
		"main_energy":         nil,
		"by_energy":           strings.Join(byEnergy, "; "),
	}
	if main != nil {
		want["total_liters"] = json.Number(main.liters.FloatString(3))
		want["avg_price"] = mean(main.prices, main.n)
		want["avg_consumption"] = mean(main.cons, main.samples)
		want["cost_per_km"] = mean(main.cost, main.samples)
		want["consumption_samples"] = json.Number(strconv.Itoa(main.samples))
		want["main_energy"] = main.energy
	}
	return want, nil
}

// renderByEnergy writes an answer's by_energy the way recompute does.
func renderByEnergy(v any) string {
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		e, _ := it.(map[string]any)
		n := func(k string) string {
			x, _ := e[k].(json.Number)
			r, ok := new(big.Rat).SetString(x.String())
			if !ok {
				return "?" + x.String()
			}
			return r.FloatString(3)
		}
		p := func(k string) string {
			x, _ := e[k].(json.Number)
			r, ok := new(big.Rat).SetString(x.String())
			if !ok {
				return "?" + x.String()
			}
			return r.FloatString(4)
		}
		out = append(out, fmt.Sprintf("%v %v %v %s %s %s %s %s %s %s %v", e["energy"], e["unit"], e["total_records"],
			n("total_quantity"), n("total_amount"), p("avg_price"), p("avg_consumption"),
			p("weighted_consumption"), p("cost_per_km"), p("weighted_cost_per_km"), e["consumption_samples"]))
	}
	return strings.Join(out, "; ")
}
