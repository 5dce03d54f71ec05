package gate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// memPull is one open pull request of memPulls: the ralph-ci statuses of
// its head and its channel (nil: it has no checkpoint).
type memPull struct {
	statuses map[string]string // spec -> state
	ch       *memChannel
	err      error // what reading it fails with
}

// memPulls is a repository in memory; opened records which pull requests
// the sweep read.
type memPulls struct {
	order  []int
	pulls  map[int]*memPull
	opened []int
}

var errRate = errors.New("403 You have exceeded a secondary rate limit")

func (m *memPulls) OpenPulls(context.Context) ([]gate.Pull, error) {
	var out []gate.Pull
	for _, n := range m.order {
		out = append(out, gate.Pull{Number: n, Head: fmt.Sprintf("head%d", n)})
	}
	return out, nil
}

func (m *memPulls) Checkpoints(_ context.Context, p gate.Pull) ([]string, bool, error) {
	var specs []string
	waiting := false
	for spec, st := range m.pulls[p.Number].statuses {
		specs, waiting = append(specs, spec), waiting || st != "success"
	}
	slices.Sort(specs)
	return specs, waiting, nil
}

func (m *memPulls) Channel(_ context.Context, p gate.Pull, specs []string) (gate.Channel, []plan.Spec, error) {
	m.opened = append(m.opened, p.Number)
	mp := m.pulls[p.Number]
	if mp.err != nil {
		return nil, nil, mp.err
	}
	var plans []plan.Spec
	for _, s := range specs {
		plans = append(plans, plan.Spec{Spec: discovery.Spec{Path: s}, Title: s, ID: s, Tier: plan.TierVerify})
	}
	return mp.ch, plans, nil
}

// pendingPull is a pull request whose checkpoint of specs/a.spec.md
// (comment 101) is pending, with the given answers on it.
func pendingPull(n int, reactions ...tiers.Answer) *memPull {
	ch := newMemChannel(n, fmt.Sprintf("head%d", n))
	rec := tiers.Record{Status: tiers.StatusPending, PR: n, SHA: ch.snap.Head, CommentID: 101, AfterComment: 101, RejectionLog: []tiers.Rejection{}}
	ch.records["specs/a.spec.md"], ch.ids["specs/a.spec.md"] = rec, 101
	ch.comments()
	ch.snap.Reactions = map[int64][]tiers.Answer{101: reactions}
	return &memPull{statuses: map[string]string{"specs/a.spec.md": "pending"}, ch: ch}
}

var thumbsUp = tiers.Answer{ID: 7, Kind: tiers.KindReaction, Author: "alice", Text: "+1", OnComment: 101}

func sweep(m *memPulls, limit, turn int) (gate.Swept, error) {
	return gate.Sweep{Pulls: m, Limit: limit, Turn: turn, RateLimited: func(err error) bool { return errors.Is(err, errRate) },
		Log: zerolog.Nop()}.Run(context.Background())
}

// TestSweepReadsWaitingPullRequests: pull requests without a checkpoint,
// or with every checkpoint approved, are not read; a 👍 on a pending one
// approves it (comment edited, status success); one that cannot be read
// is reported and the walk goes on.
func TestSweepReadsWaitingPullRequests(t *testing.T) {
	m := &memPulls{order: []int{1, 2, 3, 4, 5}, pulls: map[int]*memPull{
		1: {},
		2: {statuses: map[string]string{"specs/a.spec.md": "success"}},
		3: pendingPull(3, thumbsUp),
		4: {statuses: map[string]string{"specs/a.spec.md": "pending"}, err: errors.New("specs/a.spec.md at head4: invalid front matter")},
		5: pendingPull(5),
	}}
	out, err := sweep(m, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.opened, []int{3, 4, 5}) || !slices.Equal(out.Approved, []int{2}) || len(out.Left) != 0 {
		t.Fatalf("opened %v, approved %v, left %v", m.opened, out.Approved, out.Left)
	}
	if ch := m.pulls[3].ch; ch.statuses["specs/a.spec.md"] != "success" || ch.records["specs/a.spec.md"].DecidedBy != "alice" {
		t.Fatalf("#3 not approved by the reaction: %+v %+v", ch.statuses, ch.records)
	}
	if ch := m.pulls[5].ch; ch.published != 0 {
		t.Fatalf("#5 has no new answer but was published %d times", ch.published)
	}
	want := []string{"#3\tspecs/a.spec.md\tcheckpoint=passed", "#4\terror=specs/a.spec.md at head4: invalid front matter",
		"#5\tspecs/a.spec.md\tcheckpoint=pending", "#2\tapproved"}
	if got := out.Lines(); !slices.Equal(got, want) {
		t.Fatalf("lines\n%q\nwant\n%q", got, want)
	}
	if code, msg := out.Code(); code != exitcode.Failure || !strings.Contains(msg, "#4: specs/a.spec.md") {
		t.Fatalf("code %d %q, want failure naming #4", code, msg)
	}
}

// TestSweepLimit: at most Limit pull requests are read; the others are
// named for the next run, which starts Limit further on.
func TestSweepLimit(t *testing.T) {
	m := &memPulls{order: []int{11, 12, 13, 14, 15}, pulls: map[int]*memPull{}}
	for _, n := range m.order {
		m.pulls[n] = pendingPull(n)
	}
	out, err := sweep(m, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.opened, []int{11, 12}) || !slices.Equal(out.Left, []int{13, 14, 15}) || out.Limited != nil {
		t.Fatalf("run 1: opened %v, left %v", m.opened, out.Left)
	}
	if code, msg := out.Code(); code != exitcode.AwaitHuman || !strings.Contains(msg, "#11 specs/a.spec.md") {
		t.Fatalf("run 1: code %d %q", code, msg)
	}
	m.opened = nil
	if out, _ = sweep(m, 2, 3); !slices.Equal(m.opened, []int{15, 11}) || !slices.Equal(out.Left, []int{12, 13, 14}) {
		t.Fatalf("run 3: opened %v, left %v", m.opened, out.Left)
	}
}

// TestSweepStopsAtTheRateLimit: a rate limit stops the walk; the pull
// request it hit and the rest are left for the next run, exit 3.
func TestSweepStopsAtTheRateLimit(t *testing.T) {
	m := &memPulls{order: []int{1, 2, 3}, pulls: map[int]*memPull{1: pendingPull(1, thumbsUp), 2: pendingPull(2), 3: pendingPull(3)}}
	m.pulls[2].err = fmt.Errorf("comments of pull request #2: %w", errRate)
	out, err := sweep(m, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.opened, []int{1, 2}) || !slices.Equal(out.Left, []int{2, 3}) || !errors.Is(out.Limited, errRate) {
		t.Fatalf("opened %v, left %v, limited %v", m.opened, out.Left, out.Limited)
	}
	if m.pulls[1].ch.statuses["specs/a.spec.md"] != "success" {
		t.Fatal("#1, read before the limit, was not approved")
	}
	if code, msg := out.Code(); code != exitcode.Limits || !strings.Contains(msg, "[#2 #3]") {
		t.Fatalf("code %d %q, want limits naming #2 #3", code, msg)
	}
}

func TestRotate(t *testing.T) {
	pulls := []gate.Pull{{Number: 1}, {Number: 2}, {Number: 3}}
	for _, tc := range []struct {
		turn, limit int
		want        []int
	}{{0, 2, []int{1, 2, 3}}, {1, 2, []int{1, 2, 3}}, {2, 2, []int{3, 1, 2}}, {3, 2, []int{2, 3, 1}}, {4, 1, []int{1, 2, 3}}} {
		var got []int
		for _, p := range gate.Rotate(pulls, tc.turn, tc.limit) {
			got = append(got, p.Number)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Rotate(turn %d, limit %d) = %v, want %v", tc.turn, tc.limit, got, tc.want)
		}
	}
}
