package ingest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func mustAdmit(t *testing.T, q *queue) *Ticket {
	t.Helper()
	tk, err := q.admit()
	if err != nil {
		t.Fatalf("admit: %v", err)
	}
	return tk
}

func mustRun(t *testing.T, tk *Ticket) {
	t.Helper()
	if err := tk.wait(context.Background(), func(p int) { t.Errorf("place %d reported for a free slot", p) }); err != nil {
		t.Fatalf("wait: %v", err)
	}
}

// placeLog records the places a waiting ticket is told, and when it runs.
type placeLog struct {
	mu     sync.Mutex
	places []int
	ran    chan struct{}
	err    error
}

func (l *placeLog) last() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.places) == 0 {
		return 0
	}
	return l.places[len(l.places)-1]
}

func (l *placeLog) all() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.places)
}

func waitInBackground(ctx context.Context, tk *Ticket) *placeLog {
	l := &placeLog{ran: make(chan struct{})}
	go func() {
		l.err = tk.wait(ctx, func(p int) {
			l.mu.Lock()
			l.places = append(l.places, p)
			l.mu.Unlock()
		})
		close(l.ran)
	}()
	return l
}

// eventually polls cond for up to two seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func ran(l *placeLog) bool {
	select {
	case <-l.ran:
		return true
	default:
		return false
	}
}

func TestQueueAdmitsSlotsPlusLineThenRefuses(t *testing.T) {
	q := newQueue(2, 1)
	a, b, c := mustAdmit(t, q), mustAdmit(t, q), mustAdmit(t, q)
	if _, err := q.admit(); !errors.Is(err, ErrBusy) {
		t.Fatalf("fourth admit: %v, want ErrBusy", err)
	}
	// A place is held from admission on, before the ticket waits (its body
	// is still being received).
	if _, _, held := q.load(); held != 3 {
		t.Fatalf("held %d, want 3", held)
	}
	a.Release()
	a.Release() // idempotent: frees one place, not two
	d := mustAdmit(t, q)
	if _, err := q.admit(); !errors.Is(err, ErrBusy) {
		t.Fatalf("admit after one release: %v, want ErrBusy", err)
	}
	for _, tk := range []*Ticket{b, c, d} {
		tk.Release()
	}
	if r, l, held := q.load(); r != 0 || l != 0 || held != 0 {
		t.Fatalf("after releasing all: running %d, in line %d, held %d", r, l, held)
	}
}

func TestQueueGrantsInOrderAndReportsPlaces(t *testing.T) {
	q := newQueue(2, 3)
	r1, r2 := mustAdmit(t, q), mustAdmit(t, q)
	mustRun(t, r1)
	mustRun(t, r2)

	w := make([]*Ticket, 3)
	logs := make([]*placeLog, 3)
	for i := range w {
		w[i] = mustAdmit(t, q)
		logs[i] = waitInBackground(context.Background(), w[i])
		eventually(t, "the waiter to take its place", func() bool { return logs[i].last() == i+1 })
	}
	if r, l, _ := q.load(); r != 2 || l != 3 {
		t.Fatalf("running %d, in line %d; want 2 and 3", r, l)
	}

	r1.Release() // the first in line takes the slot; the others move up
	eventually(t, "the first waiter to run", func() bool { return ran(logs[0]) })
	eventually(t, "places to move up", func() bool { return logs[1].last() == 1 && logs[2].last() == 2 })
	if ran(logs[1]) || ran(logs[2]) {
		t.Fatal("a later waiter ran before its turn")
	}
	if r, l, _ := q.load(); r != 2 || l != 2 {
		t.Fatalf("running %d, in line %d; want 2 and 2", r, l)
	}

	w[0].Release()
	eventually(t, "the second waiter to run", func() bool { return ran(logs[1]) })
	// The third waiter hears of its new place in its own goroutine, maybe
	// after the second one has started running.
	eventually(t, "the third waiter to be next", func() bool { return logs[2].last() == 1 })
	if ran(logs[2]) {
		t.Fatal("the third waiter ran with no slot free")
	}
	if got, want := logs[2].all(), []int{3, 2, 1}; !slices.Equal(got, want) {
		t.Fatalf("third waiter was told places %v, want %v", got, want)
	}
	for _, tk := range []*Ticket{r2, w[1], w[2]} {
		tk.Release()
	}
	eventually(t, "the third waiter to run", func() bool { return ran(logs[2]) })
	if logs[2].err != nil {
		t.Fatal(logs[2].err)
	}
}

func TestQueueWaiterThatGivesUpLeavesTheLine(t *testing.T) {
	q := newQueue(1, 2)
	r := mustAdmit(t, q)
	mustRun(t, r)
	quitter, stayer := mustAdmit(t, q), mustAdmit(t, q)
	ctx, cancel := context.WithCancel(context.Background())
	ql := waitInBackground(ctx, quitter)
	eventually(t, "the quitter to take place 1", func() bool { return ql.last() == 1 })
	sl := waitInBackground(context.Background(), stayer)
	eventually(t, "the stayer to take place 2", func() bool { return sl.last() == 2 })

	cancel()
	eventually(t, "the quitter to return", func() bool { return ran(ql) })
	if !errors.Is(ql.err, context.Canceled) {
		t.Fatalf("quitter's wait: %v", ql.err)
	}
	eventually(t, "the stayer to move up", func() bool { return sl.last() == 1 })
	quitter.Release()
	if _, l, held := q.load(); l != 1 || held != 2 {
		t.Fatalf("in line %d, held %d; want 1 and 2", l, held)
	}
	r.Release()
	eventually(t, "the stayer to run", func() bool { return ran(sl) })
	stayer.Release()
	if run, l, held := q.load(); run != 0 || l != 0 || held != 0 {
		t.Fatalf("running %d, in line %d, held %d", run, l, held)
	}
}

// A ticket released while in line (its request ended) leaves the line.
func TestQueueReleaseWhileWaiting(t *testing.T) {
	q := newQueue(1, 1)
	r := mustAdmit(t, q)
	mustRun(t, r)
	w := mustAdmit(t, q)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := waitInBackground(ctx, w)
	eventually(t, "the waiter to be in line", func() bool { return l.last() == 1 })
	cancel()
	eventually(t, "the waiter to return", func() bool { return ran(l) })
	w.Release()
	r.Release()
	if run, inLine, held := q.load(); run != 0 || inLine != 0 || held != 0 {
		t.Fatalf("running %d, in line %d, held %d", run, inLine, held)
	}
}

// Under many concurrent tickets, never more than slots run at once, every
// admitted ticket runs once, and refusals happen only past the bound.
func TestQueueNeverRunsMoreThanItsSlots(t *testing.T) {
	const slots, line, workers = 3, 5, 40
	q := newQueue(slots, line)
	var now, peak, done, busy atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				tk, err := q.admit()
				if errors.Is(err, ErrBusy) {
					busy.Add(1)
					time.Sleep(100 * time.Microsecond)
					continue
				}
				if err := tk.wait(context.Background(), func(int) {}); err != nil {
					t.Error(err)
					return
				}
				n := now.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(50 * time.Microsecond)
				now.Add(-1)
				tk.Release()
				done.Add(1)
				return
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > slots || p < 2 {
		t.Fatalf("peak of %d running at once, want 2..%d", p, slots)
	}
	if done.Load() != workers {
		t.Fatalf("%d of %d ran", done.Load(), workers)
	}
	if busy.Load() == 0 {
		t.Fatalf("40 workers for %d places were never refused", slots+line)
	}
	if run, l, held := q.load(); run != 0 || l != 0 || held != 0 {
		t.Fatalf("running %d, in line %d, held %d", run, l, held)
	}
}
