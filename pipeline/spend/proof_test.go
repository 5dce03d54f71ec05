package spend

import (
	"errors"
	"testing"
)

// TestProven: the day's ledger is used only when ralph-ci's own statuses
// prove it; a ledger deleted (back at the anchor), zeroed, negative,
// rolled back, of another day or of no known origin is not.
func TestProven(t *testing.T) {
	const day, anchor = "2026-11-28", "anchor"
	doc := func(usd float64) ledgerDoc {
		return ledgerDoc{Date: day, Spent: Amount{USD: usd, Tokens: int64(usd * 1000)}}
	}
	rec := func(id string, d ledgerDoc) record { return record{id: id, doc: d, ok: true} }
	marks := []string{markText("c2", doc(0.75).Spent), markText("c1", doc(0.25).Spent)}
	type testCase struct {
		name        string
		tip, parent record
		statuses    []string
		ok          bool
	}
	for _, tc := range []testCase{
		{"a new day: the anchor, no status", rec(anchor, ledgerDoc{Date: day}), record{}, nil, true},
		{"the newest ledger named", rec("c2", doc(0.75)), rec("c1", doc(0.25)), marks, true},
		{"an update whose status is on its way", rec("c3", doc(1.0)), rec("c2", doc(0.75)), marks, true},
		{"the first update of the day, status on its way", rec("c1", doc(0.25)), rec(anchor, ledgerDoc{Date: day}), nil, true},
		{"deleted: back at the anchor", rec(anchor, ledgerDoc{Date: day}), record{}, marks, false},
		{"zeroed on top of the newest", rec("x", doc(0)), rec("c2", doc(0.75)), marks, false},
		{"zeroed, a commit of no known origin", rec("x", doc(0)), record{}, marks, false},
		{"negative", rec("x", doc(-100)), rec("c2", doc(0.75)), marks, false},
		{"a negative hold", rec("x", ledgerDoc{Date: day, Spent: Amount{USD: 0.75, Tokens: 750}, Holds: map[string]hold{"j": {Amount: Amount{USD: -5}}}}), rec("c2", doc(0.75)), marks, false},
		{"rolled back to an older ledger of ralph-ci's", rec("c1", doc(0.25)), rec(anchor, ledgerDoc{Date: day}), marks, false},
		{"of another day", rec("x", ledgerDoc{Date: "1999-01-01", Spent: Amount{USD: 1}}), rec("c2", doc(0.75)), marks, false},
		{"unreadable", record{id: "x"}, rec("c2", doc(0.75)), marks, false},
		{"a status by someone else's words", rec("x", doc(0)), record{}, []string{"ledger x $0 0t of mine"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := proven(tc.tip, tc.parent, tc.statuses, anchor, day)
			if (err == nil) != tc.ok {
				t.Fatalf("proven: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrUnproven) {
				t.Errorf("%v is not ErrUnproven", err)
			}
		})
	}
}

// TestMarkText: a status description reads back as written, under
// GitHub's 140 characters.
func TestMarkText(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	desc := markText(id, Amount{USD: 123456.123456, Tokens: 9999999999})
	m, ok := parseMark(desc)
	if !ok || m.id != id || m.spent.Tokens != 9999999999 || m.spent.USD != 123456.123456 || len(desc) > 140 {
		t.Errorf("%q read back as %+v, %v", desc, m, ok)
	}
}

// TestAbove: the pull request's spend at start is the more of its
// state's and the record's, in each measure.
func TestAbove(t *testing.T) {
	for _, tc := range []struct {
		spent, floor, want Amount
		raised             bool
	}{
		{Amount{USD: 1.5, Tokens: 10}, Amount{USD: 1.5, Tokens: 10}, Amount{USD: 1.5, Tokens: 10}, false},
		{Amount{}, Amount{USD: 1.5, Tokens: 10}, Amount{USD: 1.5, Tokens: 10}, true},
		{Amount{USD: 0.75, Tokens: 20}, Amount{USD: 1.5, Tokens: 10}, Amount{USD: 1.5, Tokens: 20}, true},
		{Amount{USD: 2}, Amount{USD: 1.5}, Amount{USD: 2}, false},
	} {
		if got, raised := Above(tc.spent, tc.floor); got != tc.want || raised != tc.raised {
			t.Errorf("Above(%v, %v) = %v, %v; want %v, %v", tc.spent, tc.floor, got, raised, tc.want, tc.raised)
		}
	}
	if got := highest([]string{spentText(Amount{USD: 0.75, Tokens: 5}), "spent $x 1t", spentText(Amount{USD: 1.5, Tokens: 3}), "someone's words"}); got != (Amount{USD: 1.5, Tokens: 5}) {
		t.Errorf("highest: %v", got)
	}
}
