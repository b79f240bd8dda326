package retry

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// table keeps a breaker and a budget per key: a Transport's hosts, or the
// names given to Retrier.For. It holds at most max keys. Making room, it
// drops the least recently used key whose breaker is closed; only when
// every breaker is open or half-open does it drop the least recently used
// of those. An open breaker is the one worth keeping: dropping it would
// send its dependency, which is failing, a fresh closed breaker's full
// traffic.
type table struct {
	max      int
	breakers bool // make a breaker per key
	budgets  bool // make a budget per key
	s        *settings

	mu      sync.Mutex
	entries map[string]*list.Element // values are *entry
	// closed holds the entries whose breaker was closed (or which have
	// none) when they were last placed, tripped the others; each most
	// recently used first.
	closed, tripped list.List
}

// entry is one key's state.
type entry struct {
	key     string
	breaker *breaker.Breaker // nil unless the table makes breakers
	budget  *budget.Budget   // nil unless the table makes budgets
	retrier *Retrier         // Retrier.For's, if any
	// open is whether the breaker is open or half-open, set by the
	// breaker's state changes (under its own lock, never table.mu).
	open atomic.Bool
	// in is the list holding the entry's element; table.mu guards it.
	in *list.List
}

func newTable(max int, breakers, budgets bool, s *settings) *table {
	return &table{max: max, breakers: breakers, budgets: budgets, s: s, entries: map[string]*list.Element{}}
}

// get returns key's entry, made (and passed to init, if not nil) on first
// use, and marks it the most recently used.
func (t *table) get(key string, init func(*entry)) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if el := t.entries[key]; el != nil {
		e := el.Value.(*entry)
		t.place(el, e, true)
		return e
	}
	for len(t.entries) >= t.max {
		t.evict()
	}
	e := &entry{key: key}
	if t.breakers {
		e.breaker = t.s.newBreaker(key, &e.open)
	}
	if t.budgets {
		e.budget = newBudget()
	}
	if init != nil {
		init(e)
	}
	e.in = t.list(e)
	t.entries[key] = e.in.PushFront(e)
	return e
}

// list is the list e belongs in now.
func (t *table) list(e *entry) *list.List {
	if e.open.Load() {
		return &t.tripped
	}
	return &t.closed
}

// place moves e's element el to the list e belongs in now: to its front if
// front, else to its back. The caller holds t.mu.
func (t *table) place(el *list.Element, e *entry, front bool) {
	want := t.list(e)
	if want == e.in {
		if front {
			want.MoveToFront(el)
		}
		return
	}
	e.in.Remove(el)
	e.in = want
	if front {
		t.entries[e.key] = want.PushFront(e)
	} else {
		t.entries[e.key] = want.PushBack(e)
	}
}

// evict drops one entry: the least recently used one with a closed breaker,
// or if there is none the least recently used one. An entry found in the
// wrong list (its breaker changed since it was placed) is moved first, to
// the back of the other list, which is where its age puts it at best;
// each entry moves at most once per change of its breaker, so evict costs
// O(1) amortised. The caller holds t.mu.
func (t *table) evict() {
	for el := t.closed.Back(); el != nil; el = t.closed.Back() {
		e := el.Value.(*entry)
		if !e.open.Load() {
			t.drop(el, e)
			return
		}
		t.place(el, e, false)
	}
	if el := t.tripped.Back(); el != nil {
		t.drop(el, el.Value.(*entry))
	}
}

// drop removes e and its element el. The caller holds t.mu.
func (t *table) drop(el *list.Element, e *entry) {
	e.in.Remove(el)
	delete(t.entries, e.key)
}
