package spend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Store keeps one small document that several processes update
// compare-and-swap: Load returns it with its version ("" when there is
// none yet), Store replaces the version it was given, or fails with
// ErrStale when another process replaced it first.
type Store interface {
	Load(ctx context.Context) (doc []byte, version string, err error)
	Store(ctx context.Context, doc []byte, version string) error
}

// ErrStale is Store's error when the document changed since Load.
var ErrStale = errors.New("the ledger changed meanwhile")

// Ledger is a repository's spend of one UTC day, shared by every job
// that runs the loop (the runs of all pull requests). A job holds a share
// of the day's cap before its agent spends it (Hold), in chunks of a
// tenth of the cap, and settles it with what the agent really spent
// (Settle): a hold taken by compare-and-swap is room no other job can
// take, so the jobs together never spend past the cap by more than the
// last streamed message of each. Holds of a job that died expire.
type Ledger struct {
	Store Store
	Cap   Cap
	// Owner names this job's holds (its run id); TTL is how long one
	// lasts without being settled.
	Owner string
	TTL   time.Duration
	Now   func() time.Time
}

// ledgerDoc is the ledger's document.
type ledgerDoc struct {
	Date  string          `json:"date"`
	Spent Amount          `json:"spent"`
	Holds map[string]hold `json:"holds,omitempty"`
}

type hold struct {
	Amount
	Until time.Time `json:"until"`
}

// maxHolds bounds the holds kept: a ledger full of expired or foreign
// holds stays small.
const maxHolds = 256

// update applies change to the ledger until it is stored without a race.
func (l *Ledger) update(ctx context.Context, change func(d *ledgerDoc) error) (ledgerDoc, error) {
	for attempt := 0; ; attempt++ {
		raw, version, err := l.Store.Load(ctx)
		if err != nil {
			return ledgerDoc{}, fmt.Errorf("read the day's spend ledger: %w", err)
		}
		var d ledgerDoc
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &d); err != nil {
				return ledgerDoc{}, fmt.Errorf("the day's spend ledger is unreadable (%v): delete its ref to start the day over", err)
			}
		}
		now := l.Now().UTC()
		if d.Date != now.Format(time.DateOnly) {
			d = ledgerDoc{Date: now.Format(time.DateOnly)}
		}
		if d.Holds == nil {
			d.Holds = map[string]hold{}
		}
		for owner, h := range d.Holds {
			if now.After(h.Until) {
				delete(d.Holds, owner)
			}
		}
		if err := change(&d); err != nil {
			return d, err
		}
		trimHolds(d.Holds)
		out, err := json.Marshal(d)
		if err != nil {
			return d, err
		}
		err = l.Store.Store(ctx, out, version)
		if err == nil {
			return d, nil
		}
		if !errors.Is(err, ErrStale) || attempt >= 50 {
			return d, fmt.Errorf("update the day's spend ledger: %w", err)
		}
	}
}

// trimHolds keeps the maxHolds holds that last longest.
func trimHolds(holds map[string]hold) {
	if len(holds) <= maxHolds {
		return
	}
	owners := make([]string, 0, len(holds))
	for o := range holds {
		owners = append(owners, o)
	}
	sort.Slice(owners, func(i, j int) bool { return holds[owners[i]].Until.After(holds[owners[j]].Until) })
	for _, o := range owners[maxHolds:] {
		delete(holds, o)
	}
}

// room is what the day has left for owner: the cap, less what was spent
// and what the other jobs hold.
func (d *ledgerDoc) room(c Cap, owner string) Amount {
	used := d.Spent
	for o, h := range d.Holds {
		if o != owner {
			used = used.Add(h.Amount)
		}
	}
	return Cap2Amount(c).Sub(used)
}

// Cap2Amount is a cap's bounds as an amount (unbounded measures are 0).
func Cap2Amount(c Cap) Amount { return Amount{USD: c.USD, Tokens: c.Tokens} }

// Hold raises this job's hold by a tenth of the cap (at most what is
// left), and returns the hold as a cap on the rotation's spend; false when
// nothing is left of the day.
func (l *Ledger) Hold(ctx context.Context) (Cap, bool, error) {
	var held Amount
	var ok bool
	_, err := l.update(ctx, func(d *ledgerDoc) error {
		room := d.room(l.Cap, l.Owner)
		h := d.Holds[l.Owner]
		grant := Amount{USD: min(l.Cap.USD/10, room.USD-h.USD), Tokens: min(max(l.Cap.Tokens/10, 1), room.Tokens-h.Tokens)}
		ok = (l.Cap.USD == 0 || grant.USD > 0) && (l.Cap.Tokens == 0 || grant.Tokens > 0)
		held = h.Amount
		if !ok && h.Amount == (Amount{}) { // nothing held, nothing granted: leave no hold behind
			delete(d.Holds, l.Owner)
			return nil
		}
		if ok {
			h.Amount = h.Amount.Add(Amount{USD: max(grant.USD, 0), Tokens: max(grant.Tokens, 0)})
		}
		h.Until = l.Now().Add(l.TTL)
		d.Holds[l.Owner] = h
		held = h.Amount
		return nil
	})
	return Cap{Scope: Day, Key: l.Cap.Key, USD: pick(l.Cap.USD, held.USD), Tokens: pick(l.Cap.Tokens, held.Tokens)}, ok, err
}

// pick is v where the cap bounds the measure (c > 0), else no bound.
func pick[T int64 | float64](c, v T) T {
	if c > 0 {
		return v
	}
	return 0
}

// Settle records what this job's rotation spent and drops its hold; it
// returns the day's spend.
func (l *Ledger) Settle(ctx context.Context, spent Amount) (Amount, error) {
	d, err := l.update(ctx, func(d *ledgerDoc) error {
		d.Spent = d.Spent.Add(spent)
		delete(d.Holds, l.Owner)
		return nil
	})
	return d.Spent, err
}

// Spent returns the day's spend and what the other jobs hold.
func (l *Ledger) Spent(ctx context.Context) (spent, held Amount, err error) {
	raw, _, err := l.Store.Load(ctx)
	if err != nil || len(raw) == 0 {
		return spent, held, err
	}
	var d ledgerDoc
	if json.Unmarshal(raw, &d) != nil || d.Date != l.Now().UTC().Format(time.DateOnly) {
		return spent, held, nil
	}
	for o, h := range d.Holds {
		if o != l.Owner && l.Now().Before(h.Until) {
			held = held.Add(h.Amount)
		}
	}
	return d.Spent, held, nil
}
