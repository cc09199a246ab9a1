package ingest

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// ErrBusy is returned by Admit when every running slot and every place in the
// queue is taken. Callers answer 503 with Retry-After.
var ErrBusy = errors.New("ingestion queue is full")

// queue bounds the ingestions of the whole service: at most running of them
// extract and embed at once (they hold the memory and the provider's
// capacity), at most waiting more are admitted and wait in order, and past
// that Admit refuses at once. A place is reserved before the body is read,
// so the bound also covers the temporary files of uploads in flight.
//
// golang.org/x/sync/semaphore.Weighted was measured against it: it is FIFO
// and honours contexts, but it cannot say a waiter's place in line (which
// the progress stream reports) nor refuse past a queue length.
type queue struct {
	mu      sync.Mutex
	slots   int       // ingestions that may run at once
	places  int       // slots plus the queue's length: tickets that may be held
	held    int       // tickets not yet released
	running int       // tickets holding a slot
	line    []*Ticket // tickets waiting for a slot, first in line first
	moved   chan struct{}
}

func newQueue(slots, waiting int) *queue {
	return &queue{slots: slots, places: slots + waiting, moved: make(chan struct{})}
}

type ticketState int

const (
	admitted ticketState = iota // holds a place, not yet waiting for a slot
	waiting                     // in line
	running                     // holds a slot
	released
)

// Ticket is an admitted ingestion's place. Release it when done, whatever
// happened; Release is idempotent.
type Ticket struct {
	q       *queue
	state   ticketState   // guarded by q.mu
	granted chan struct{} // closed when a slot is handed over to this ticket
}

// admit reserves a place, or fails with ErrBusy.
func (q *queue) admit() (*Ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held >= q.places {
		return nil, ErrBusy
	}
	q.held++
	return &Ticket{q: q, granted: make(chan struct{})}, nil
}

// wait blocks until the ticket holds a slot or ctx ends. place is called with
// the ticket's place in line (1 = next) whenever it changes, never when a
// slot is free at once. A ticket that already holds a slot returns at once.
func (t *Ticket) wait(ctx context.Context, place func(int)) error {
	q := t.q
	q.mu.Lock()
	switch t.state {
	case running:
		q.mu.Unlock()
		return nil
	case released:
		q.mu.Unlock()
		return errors.New("ingest: ticket already released")
	}
	if len(q.line) == 0 && q.running < q.slots {
		t.state = running
		q.running++
		q.mu.Unlock()
		return nil
	}
	t.state = waiting
	q.line = append(q.line, t)
	q.changedLocked()
	last := 0
	for {
		at := slices.Index(q.line, t) + 1
		moved := q.moved
		q.mu.Unlock()
		if at > 0 && at != last {
			place(at)
			last = at
		}
		select {
		case <-t.granted:
			return nil
		case <-moved:
			q.mu.Lock()
		case <-ctx.Done():
			q.mu.Lock()
			if t.state == running {
				// The slot was handed over just as ctx ended: the
				// caller's Release gives it on.
				q.mu.Unlock()
				return ctx.Err()
			}
			q.line = slices.DeleteFunc(q.line, func(o *Ticket) bool { return o == t })
			t.state = admitted
			q.changedLocked()
			q.mu.Unlock()
			return ctx.Err()
		}
	}
}

// Release gives the ticket's slot to the first in line, or frees its place.
func (t *Ticket) Release() {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	switch t.state {
	case released:
		return
	case waiting:
		q.line = slices.DeleteFunc(q.line, func(o *Ticket) bool { return o == t })
		q.changedLocked()
	case running:
		if len(q.line) > 0 {
			next := q.line[0]
			q.line = q.line[1:]
			next.state = running
			close(next.granted)
			q.changedLocked()
		} else {
			q.running--
		}
	}
	t.state = released
	q.held--
}

// changedLocked wakes every waiter to look at its place again.
func (q *queue) changedLocked() {
	close(q.moved)
	q.moved = make(chan struct{})
}

// load returns the tickets running and waiting, for tests and metrics.
func (q *queue) load() (runningNow, inLine, held int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running, len(q.line), q.held
}
