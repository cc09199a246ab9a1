package httpapi_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentDefaultSwitching runs 20 writers that switch the default
// through both endpoints and create new default vehicles, beside readers
// that list the vehicles: no reader may see two defaults, no request may
// fail with a 5xx, and exactly one default must remain. 20 writers of 3
// rounds (one of each kind of write) are plenty: without the default lock
// on PostgreSQL most of their writes fail; 50 writers of 6 rounds took 29 s
// under the race detector.
func TestConcurrentDefaultSwitching(t *testing.T) {
	const (
		writers = 20
		rounds  = 3
		readers = 4
	)
	forEachDialect(t, func(t *testing.T, s *server) {
		var ids []string
		for i := 0; i < 5; i++ {
			ids = append(ids, s.mustVehicle(fmt.Sprintf(`{"name":"seed %d","fuel_type":"diesel"}`, i)))
		}
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			failures []string
			done     = make(chan struct{})
		)
		fail := func(format string, args ...any) {
			mu.Lock()
			failures = append(failures, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		for r := 0; r < readers; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					res := s.do("GET", "/api/vehicles", "")
					if res.status != 200 {
						fail("list: %d %s", res.status, res.body)
						continue
					}
					// No t.Fatal off the test goroutine: decode by hand.
					var list []struct {
						DefaultVehicle bool `json:"default_vehicle"`
					}
					if err := json.Unmarshal(res.body, &list); err != nil {
						fail("list body %s: %v", res.body, err)
						continue
					}
					defaults := 0
					for _, v := range list {
						if v.DefaultVehicle {
							defaults++
						}
					}
					if defaults > 1 {
						fail("a reader saw %d defaults", defaults)
					}
				}
			}()
		}
		var writersWG sync.WaitGroup
		for w := 0; w < writers; w++ {
			writersWG.Add(1)
			go func() {
				defer writersWG.Done()
				for i := 0; i < rounds; i++ {
					id := ids[(w+i)%len(ids)]
					var res response
					switch (w + i) % 3 {
					case 0:
						res = s.do("POST", "/api/vehicles/"+id+"/default", "")
					case 1:
						res = s.do("PUT", "/api/vehicles/"+id, `{"default_vehicle":true}`)
					default:
						res = s.do("POST", "/api/vehicles", fmt.Sprintf(`{"name":"w%d-%d","fuel_type":"diesel","default_vehicle":true}`, w, i))
					}
					if res.status != 200 {
						fail("writer %d round %d: %d %s", w, i, res.status, res.body)
						continue
					}
					var v struct {
						DefaultVehicle bool `json:"default_vehicle"`
					}
					if err := json.Unmarshal(res.body, &v); err != nil || !v.DefaultVehicle {
						fail("writer %d round %d answered a non-default vehicle: %s", w, i, res.body)
					}
				}
			}()
		}
		writersWG.Wait()
		close(done)
		wg.Wait()
		for _, f := range failures {
			t.Error(f)
		}
		all := array(t, s.must(200, "GET", "/api/vehicles", "").body)
		defaults := 0
		for _, v := range all {
			if v["default_vehicle"] == true {
				defaults++
			}
		}
		if defaults != 1 {
			t.Errorf("%d defaults at the end, want exactly 1", defaults)
		}
		if wantLen := 5 + writers*rounds/3; len(all) != wantLen {
			t.Errorf("%d vehicles, want %d", len(all), wantLen)
		}
	})
}
