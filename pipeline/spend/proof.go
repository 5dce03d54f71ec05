package spend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The day's ledger ref can be written by anyone who may push to the
// repository: deleted, zeroed, set negative or rolled back, it would give
// the day's cap back. So on GitHub a ledger is proven by what only
// ralph-ci's identity can write: after each update it sets its own commit
// status of context ProofContext, "ledger <commit> $<usd> <tokens>t", on
// the day's anchor, a commit every ledger of that day descends from and
// that anyone can compute (its content is the day's date: Anchor). A
// ledger read is used only when
//
//   - it is the anchor itself (nothing spent), or a commit a status names,
//     or the child of one (another job's update whose status is on its
//     way) that spent no less than it;
//   - it spent no less than every status on the anchor records (no
//     rollback), nothing in it is negative, and it is of that day.
//
// Anything else is ErrUnproven, which the engine counts as the day's cap
// reached, never as nothing spent.
//
// The first run of a day: when the day's ref does not exist, ralph-ci
// pushes the anchor there (only if the ref is still absent), then reads
// the anchor's statuses: none is a new day; any is a day that started and
// whose ledger was deleted, which the rule above refuses (the anchor
// spent less than they record). Off GitHub (no Proof) the ref is trusted
// as it is, as the state refs are.

// ProofContext is the context of the commit statuses that prove the
// day's ledger.
const ProofContext = "ralph-ci/spend"

// Proof reads and writes ralph-ci's own commit statuses
// (deliver.Binder is one).
type Proof interface {
	SetStatus(ctx context.Context, commit, ctxName, desc string) error
	OwnStatuses(ctx context.Context, commit, ctxName string) ([]string, error)
}

// ErrUnproven is the error of a ledger that ralph-ci's own records do
// not prove.
var ErrUnproven = errors.New("the day's spend ledger is not proven by ralph-ci's own records")

// record is one ledger commit as read: its id and document.
type record struct {
	id  string
	doc ledgerDoc
	ok  bool
}

// mark is what one of ralph-ci's statuses records.
type mark struct {
	id    string
	spent Amount
}

// markText is the status description of ledger commit id that spent a.
func markText(id string, a Amount) string {
	return fmt.Sprintf("ledger %s $%.6f %dt", id, a.USD, a.Tokens)
}

// parseMark reads a status description written by markText.
func parseMark(desc string) (mark, bool) {
	f := strings.Fields(desc)
	if len(f) != 4 || f[0] != "ledger" || !strings.HasPrefix(f[2], "$") || !strings.HasSuffix(f[3], "t") {
		return mark{}, false
	}
	usd, err1 := strconv.ParseFloat(f[2][1:], 64)
	tokens, err2 := strconv.ParseInt(strings.TrimSuffix(f[3], "t"), 10, 64)
	if err1 != nil || err2 != nil {
		return mark{}, false
	}
	return mark{id: f[1], spent: Amount{USD: usd, Tokens: tokens}}, true
}

// negative tells whether anything in d is below zero.
func (d ledgerDoc) negative() bool {
	if d.Spent.USD < 0 || d.Spent.Tokens < 0 || d.Spent.Unpriced < 0 {
		return true
	}
	for _, h := range d.Holds {
		if h.USD < 0 || h.Tokens < 0 || h.Unpriced < 0 {
			return true
		}
	}
	return false
}

// atLeast tells whether a spent no less than b, in dollars and tokens.
func atLeast(a, b Amount) bool { return a.USD >= b.USD-1e-9 && a.Tokens >= b.Tokens }

// proven is the rule (see above): nil when tip, whose parent is parent,
// may be used as day's ledger, given ralph-ci's statuses on anchor.
func proven(tip, parent record, statuses []string, anchor, day string) error {
	if !tip.ok {
		return fmt.Errorf("%w: %.12s holds no ledger ralph-ci can read", ErrUnproven, tip.id)
	}
	if tip.doc.negative() {
		return fmt.Errorf("%w: %.12s records a negative spend", ErrUnproven, tip.id)
	}
	if tip.doc.Date != day {
		return fmt.Errorf("%w: %.12s is dated %q, not %s", ErrUnproven, tip.id, tip.doc.Date, day)
	}
	marked := map[string]Amount{anchor: {}}
	var high Amount
	for _, s := range statuses {
		if m, ok := parseMark(s); ok {
			marked[m.id] = m.spent
			high = Amount{USD: max(high.USD, m.spent.USD), Tokens: max(high.Tokens, m.spent.Tokens)}
		}
	}
	_, bound := marked[tip.id]
	if !bound && parent.ok && !parent.doc.negative() && atLeast(tip.doc.Spent, parent.doc.Spent) {
		_, bound = marked[parent.id]
	}
	if !bound {
		return fmt.Errorf("%w: %.12s is neither named by ralph-ci's own %s status on the day's anchor %.12s nor an update of one", ErrUnproven, tip.id, ProofContext, anchor)
	}
	if !atLeast(tip.doc.Spent, high) {
		return fmt.Errorf("%w: %.12s records %s spent, less than the %s ralph-ci's own %s status records (the ref was deleted or rolled back)", ErrUnproven, tip.id, tip.doc.Spent, high, ProofContext)
	}
	return nil
}

// anchorDoc is the ledger of the anchor of day: nothing spent.
func anchorDoc(day string) []byte {
	raw, _ := json.Marshal(ledgerDoc{Date: day})
	return raw
}
