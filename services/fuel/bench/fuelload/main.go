// Command fuelload drives a running fuel API (fuel-service or fuelfloor)
// with concurrent keep-alive connections and reports throughput and
// latency percentiles. With -seed it first creates the data the scenarios
// use, through the API itself. With -pid it also reports the CPU time the
// server process spent per request during the measured part (from
// /proc/PID/stat, so on Linux only), which other work on a shared machine
// disturbs less than req/s.
//
//	fuelload -url http://127.0.0.1:8082 -seed                 # prints the ids
//	fuelload -url http://127.0.0.1:8082 -scenario list -vehicle 1 -c 32 -d 15s
//	fuelload -url http://127.0.0.1:8000 -scenario get -path /api/documents -header "Authorization: Bearer $TOKEN"
//	fuelload -url http://127.0.0.1:8082 -scenario get-vehicle -vehicle 1 -pid $PID   # and the service's CPU per request
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fuelload:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fuelload", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8082", "base URL of the API")
	seed := fs.Bool("seed", false, "create a vehicle with -records refuels and an empty one for POSTs, print their ids, exit")
	records := fs.Int("records", 100, "refuels of the seeded list vehicle")
	scenario := fs.String("scenario", "get-vehicle", "get-vehicle | list | post-refuel | get (GET -path)")
	path := fs.String("path", "", "the path the get scenario requests, e.g. /api/documents")
	header := http.Header{}
	fs.Func("header", `a header every request carries, "Name: value" (repeatable), e.g. "Authorization: Bearer TOKEN"`, func(v string) error {
		name, value, ok := strings.Cut(v, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("%q is not Name: value", v)
		}
		header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		return nil
	})
	vehicle := fs.Uint64("vehicle", 1, "vehicle id the scenario uses")
	conns := fs.Int("c", 32, "concurrent connections")
	duration := fs.Duration("d", 10*time.Second, "duration")
	warmup := fs.Duration("warmup", 2*time.Second, "unmeasured warm-up")
	pid := fs.Int("pid", 0, "the server's process id, to report its CPU time per request of the measured part")
	if err := fs.Parse(args); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns}, Timeout: 30 * time.Second}
	if *seed {
		return seedData(client, *base, *records, stdout)
	}
	req, err := requestFor(*scenario, *base, *vehicle, *path)
	if err != nil {
		return err
	}
	req.header = header
	if *warmup > 0 {
		if _, err := load(client, req, *conns, *warmup); err != nil {
			return err
		}
	}
	var cpu0 time.Duration
	if *pid > 0 {
		if cpu0, err = processCPU(*pid); err != nil {
			return err
		}
	}
	res, err := load(client, req, *conns, *duration)
	if err != nil {
		return err
	}
	cpu := ""
	if *pid > 0 {
		cpu1, err := processCPU(*pid)
		if err != nil {
			return err
		}
		cpu = fmt.Sprintf(", server CPU %.0f µs/request", float64((cpu1-cpu0).Microseconds())/float64(res.n))
	}
	fmt.Fprintf(stdout, "%s %s c=%d d=%s: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, errors %d%s\n",
		*scenario, *base, *conns, *duration, res.n, res.rps, ms(res.p50), ms(res.p99), res.errors, cpu)
	if res.errors > 0 {
		return fmt.Errorf("%d requests failed (first: %s)", res.errors, res.firstError)
	}
	return nil
}

// request builds one request of a scenario; bodies are rebuilt per call.
type request struct {
	method, url string
	body        func(i int64) []byte
	header      http.Header
}

func requestFor(scenario, base string, vehicle uint64, path string) (request, error) {
	switch scenario {
	case "get":
		if !strings.HasPrefix(path, "/") {
			return request{}, fmt.Errorf("the get scenario needs -path starting with /, got %q", path)
		}
		return request{method: "GET", url: base + path}, nil
	case "get-vehicle":
		return request{method: "GET", url: fmt.Sprintf("%s/api/vehicles/%d", base, vehicle)}, nil
	case "list":
		return request{method: "GET", url: fmt.Sprintf("%s/api/refuels?vehicle_id=%d", base, vehicle)}, nil
	case "post-refuel":
		start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		return request{method: "POST", url: base + "/api/refuels", body: func(i int64) []byte {
			return fmt.Appendf(nil, `{"vehicle_id":%d,"refuel_time":%q,"odometer":%d.5,"fuel_type":"95","liters":41.25,"total_amount":70.13,"is_full":%t,"station_name":"Load"}`,
				vehicle, start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), 1000+i, i%3 != 0)
		}}, nil
	}
	return request{}, fmt.Errorf("unknown scenario %q", scenario)
}

type result struct {
	n, errors  int64
	rps        float64
	p50, p99   time.Duration
	firstError string
}

// load runs conns workers issuing req back to back for d.
func load(client *http.Client, req request, conns int, d time.Duration) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		seq      atomic.Int64
		errs     atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
		lat      = make([][]time.Duration, conns)
	)
	start := time.Now()
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := seq.Add(1)
				t0 := time.Now()
				err := once(client, req, i)
				if ctx.Err() != nil && err != nil {
					return // cut by the deadline: not a failure of the server
				}
				lat[w] = append(lat[w], time.Since(t0))
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return result{}, errors.New("no request completed")
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r := result{n: int64(len(all)), errors: errs.Load(), rps: float64(len(all)) / elapsed.Seconds(),
		p50: all[len(all)/2], p99: all[len(all)*99/100]}
	if s, ok := firstErr.Load().(string); ok {
		r.firstError = s
	}
	return r, nil
}

func once(client *http.Client, req request, i int64) error {
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body(i))
	}
	hr, err := http.NewRequest(req.method, req.url, body)
	if err != nil {
		return err
	}
	for k, v := range req.header {
		hr.Header[k] = v
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(hr)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d", req.method, req.url, res.StatusCode)
	}
	return nil
}

// seedData creates the list vehicle with n refuels and an empty vehicle
// that the POST scenario fills.
func seedData(client *http.Client, base string, n int, stdout io.Writer) error {
	post := func(path, body string) (uint64, error) {
		res, err := client.Post(base+path, "application/json", bytes.NewBufferString(body))
		if err != nil {
			return 0, err
		}
		defer res.Body.Close()
		var out struct{ ID uint64 }
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
			return 0, fmt.Errorf("POST %s: status %d: %v", path, res.StatusCode, err)
		}
		return out.ID, nil
	}
	listID, err := post("/api/vehicles", `{"name":"load list","fuel_type":"gasoline","tank_capacity":50}`)
	if err != nil {
		return err
	}
	postID, err := post("/api/vehicles", `{"name":"load post","fuel_type":"diesel"}`)
	if err != nil {
		return err
	}
	start := time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"vehicle_id":%d,"refuel_time":%q,"odometer":%d,"fuel_type":"95","liters":%d.37,"total_amount":%d.99,"is_full":%t,"station_name":"Station %d","remark":"seed"}`,
			listID, start.Add(time.Duration(i)*72*time.Hour).Format(time.RFC3339), 1000+i*600, 30+i%15, 50+i%20, i%4 != 1, i%7)
		if _, err := post("/api/refuels", body); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "list_vehicle=%d post_vehicle=%d records=%d\n", listID, postID, n)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// userHZ is the unit of the times in /proc/PID/stat (USER_HZ, 100 on every
// Linux architecture Go runs on).
const userHZ = 100

// processCPU is the user and system time process pid has used so far.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("-pid: %w", err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line. The command name (field 2) is in parentheses and
// may hold spaces and parentheses itself: the fields are counted from the
// last ")".
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("-pid: /proc/PID/stat has no command name")
	}
	f := strings.Fields(stat[i+1:]) // from field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("-pid: /proc/PID/stat has %d fields after the command name, want at least 13", len(f))
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("-pid: /proc/PID/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
