package agentuser

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPoolNames(t *testing.T) {
	names := PoolNames()
	if len(names) != PoolSize || names[0] != DefaultName || names[1] != DefaultName+"-2" || names[PoolSize-1] != DefaultName+"-16" {
		t.Fatalf("PoolNames() = %q", names)
	}
	for _, n := range names {
		if !nameRE.MatchString(n) || !InPool(n) {
			t.Errorf("%q: not a user's name, or not in the pool", n)
		}
	}
	for _, n := range []string{"ralph-agent-1", "ralph-agent-17", "ralph-agent-02", "builder", "ralph-agent-"} {
		if InPool(n) {
			t.Errorf("InPool(%q)", n)
		}
	}
}

// A run takes the first user no other run holds, in the pool's order;
// with every one held it gets none (and waits); an error stops it.
func TestFirstFree(t *testing.T) {
	names := PoolNames()
	for _, c := range []struct {
		held []string
		want string
	}{
		{nil, "ralph-agent"},
		{[]string{"ralph-agent"}, "ralph-agent-2"},
		{[]string{"ralph-agent", "ralph-agent-3"}, "ralph-agent-2"},
		{[]string{"ralph-agent", "ralph-agent-2"}, "ralph-agent-3"},
		{names[:PoolSize-1], "ralph-agent-16"},
		{names, ""},
	} {
		held := map[string]bool{}
		for _, n := range c.held {
			held[n] = true
		}
		var tried []string
		got, err := firstFree(names, func(n string) (bool, error) { tried = append(tried, n); return !held[n], nil })
		if err != nil || got != c.want {
			t.Errorf("held %q: got %q, %v; want %q", c.held, got, err, c.want)
		}
		if c.want != "" && tried[len(tried)-1] != c.want {
			t.Errorf("held %q: tried %q after the free one", c.held, tried)
		}
	}
	_, err := firstFree(names, func(n string) (bool, error) { return false, errors.New("no lock") })
	if err == nil || !strings.Contains(err.Error(), "ralph-agent: no lock") {
		t.Errorf("an error of the lock: %v", err)
	}
}

// What a user's record leaves to take back: every grant once (the first
// says what ralph-ci changed), every tree lent and not given back since.
func TestPending(t *testing.T) {
	lines := func(rs ...record) []byte {
		var b []byte
		for _, r := range rs {
			b = append(b, r.line()...)
		}
		return b
	}
	g1 := record{Kind: recGrant, Dir: "/root", UID: 999, Made: true, Mask: true}
	g1again := record{Kind: recGrant, Dir: "/root", UID: 999}
	g2 := record{Kind: recGrant, Dir: "/tmp/x", UID: 999, Made: true}
	lendA := record{Kind: recLend, Dir: "/w/a", UID: 999, Owner: 1001, Group: 1001, Mode: 0o755}
	givenA := record{Kind: recGiven, Dir: "/w/a", UID: 999}
	lendB := record{Kind: recLend, Dir: "/w/b", UID: 999, Mode: 0o750}
	for _, c := range []struct {
		name         string
		data         []byte
		grants, lent []record
	}{
		{"empty", nil, nil, nil},
		{"a run that ended", lines(g1, lendA, givenA), []record{g1}, nil},
		{"a killed run", lines(g1, g2, lendA), []record{g1, g2}, []record{lendA}},
		{"the first grant of a folder counts", lines(g1, g1again), []record{g1}, nil},
		{"given, lent again, killed", lines(lendA, givenA, lendB, lendA), nil, []record{lendB, lendA}},
		{"a torn last line", append(lines(g2, lendB), `{"kind":"grant","dir":"/ro`...), []record{g2}, []record{lendB}},
		{"given back out of order", lines(lendA, lendB, givenA), nil, []record{lendB}},
	} {
		grants, lent := pending(c.data)
		if !reflect.DeepEqual(grants, c.grants) || !reflect.DeepEqual(lent, c.lent) {
			t.Errorf("%s: got %+v, %+v; want %+v, %+v", c.name, grants, lent, c.grants, c.lent)
		}
	}
}
