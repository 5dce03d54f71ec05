package spend

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// memStore is a Store in memory, compare-and-swap by a version counter.
type memStore struct {
	mu      sync.Mutex
	doc     []byte
	version int
}

func (m *memStore) Load(context.Context) ([]byte, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.version == 0 {
		return nil, "", nil
	}
	return m.doc, string(rune('a' + m.version)), nil
}

func (m *memStore) Store(_ context.Context, doc []byte, version string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := ""
	if m.version > 0 {
		cur = string(rune('a' + m.version))
	}
	if version != cur {
		return ErrStale
	}
	m.doc, m.version = doc, m.version+1
	return nil
}

// Two jobs metering their agents against one day's ledger, message by
// message ($0.05 each), never spend together more than the cap and one
// message each.
func TestLedgerHoldsTheDayAcrossJobs(t *testing.T) {
	store := &memStore{}
	c := Cap{Scope: Day, Key: "budgets.per_day", USD: 1}
	var wg sync.WaitGroup
	spent := make([]Amount, 2)
	for j := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &Ledger{Store: store, Cap: c, Owner: string(rune('A' + j)), TTL: time.Hour, Now: time.Now}
			ctx := context.Background()
			for range 3 { // rotations
				held, ok, err := l.Hold(ctx)
				if err != nil || !ok {
					return
				}
				m := &Meter{Table: Defaults, Limits: []Limit{{Cap: held, Extend: func() (Cap, bool) {
					c, ok, err := l.Hold(ctx)
					return c, ok && err == nil
				}}}}
				var u agent.Usage
				for i := 0; i < 20; i++ {
					u.Tokens.Input += 12500
					u.Models = map[string]agent.Tokens{"claude-opus-5-5": u.Tokens}
					if m.Check(u) {
						break
					}
				}
				spent[j] = spent[j].Add(m.Last)
				if _, err := l.Settle(ctx, m.Last); err != nil {
					t.Error(err)
				}
				if m.Hit != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	l := &Ledger{Store: store, Cap: c, Owner: "x", Now: time.Now}
	day, held, _ := l.Spent(context.Background())
	if total := spent[0].USD + spent[1].USD; total > 1.1+1e-9 || total < 0.9 || day.USD != total || held != (Amount{}) {
		t.Errorf("jobs spent %v and %v; the ledger says %v, held %v; want $1.00 to $1.10 in all", spent[0], spent[1], day, held)
	}
}

// A job that finds the day spent is refused a share and leaves no hold
// behind: an empty hold would stay in the ledger until it expired.
func TestLedgerRefusedJobLeavesNoHold(t *testing.T) {
	store := &memStore{}
	c := Cap{Scope: Day, Key: "budgets.per_day", USD: 1}
	ctx := context.Background()
	a := &Ledger{Store: store, Cap: c, Owner: "A", TTL: time.Hour, Now: time.Now}
	if _, err := a.Settle(ctx, Amount{USD: 1}); err != nil {
		t.Fatal(err)
	}
	b := &Ledger{Store: store, Cap: c, Owner: "B", TTL: time.Hour, Now: time.Now}
	if _, ok, err := b.Hold(ctx); err != nil || ok {
		t.Fatalf("Hold on a spent day: ok=%v, err=%v; want refused", ok, err)
	}
	if doc := string(store.doc); strings.Contains(doc, `"holds"`) {
		t.Errorf("the ledger after a refused hold: %s; want no hold left", doc)
	}
}
