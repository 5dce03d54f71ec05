package prchannel_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// ledgerClient is a client of the world's pull request after a Read.
func ledgerClient(t *testing.T, w *world) *prchannel.Client {
	t.Helper()
	event, err := filepath.Abs("testdata/events/pull_request.opened.json")
	if err != nil {
		t.Fatal(err)
	}
	_ = event
	repo := prchannel.RepoForTest(t, github.Config{APIURL: w.srv.URL, Token: "test-token"}, "Codertocat/Hello-World")
	c := prchannel.New(repo, prchannel.Options{PR: 2, Log: zerolog.New(w.logs), TrustConfig: true})
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func commitSHA(i int) string { return fmt.Sprintf("%040x", i) }

// Recorded reads the newest status ralph-ci's own login set for the spec,
// walking the pull request's commits from the head back and stopping at
// the first that has one; statuses of other logins or contexts do not
// count; listings are read once per Read.
func TestRecordedWalksFromTheHead(t *testing.T) {
	w := newWorld(t)
	const spec = "specs/a.spec.md"
	var shas []string
	for i := 1; i <= 5; i++ {
		shas = append(shas, commitSHA(i))
	}
	w.srv.SetCommits(shas...)
	w.srv.SetStatus(shas[1], "ralph-ci/"+spec, "pending", "rejected (1/3): back to work")
	w.srv.SetStatus(shas[2], "ralph-ci/"+spec, "pending", "awaiting the human checkpoint (rejected 2/3 so far)")
	w.srv.SetStatus(shas[3], "ralph-ci/specs/other.spec.md", "pending", "awaiting the human checkpoint")
	// On the head: another bot's status of the spec's context, and
	// ralph-ci's own for another pull request the commit is also on.
	w.srv.AddStatus(fake.Status{SHA: shas[4], Context: "ralph-ci/" + spec, State: "success", Description: "approved by @alice", Creator: dep})
	w.srv.AddStatus(fake.Status{SHA: shas[4], Context: "ralph-ci/" + spec, State: "failure", Description: "rejected 3 times: escalated",
		TargetURL: "https://github.com/Codertocat/Hello-World/pull/3"})
	c := ledgerClient(t, w)
	desc, _, found, err := c.Recorded(context.Background(), spec, "")
	if err != nil || !found || desc != "awaiting the human checkpoint (rejected 2/3 so far)" {
		t.Fatalf("Recorded = %q, %v, %v", desc, found, err)
	}
	if n := w.srv.Seen("GET", "/commits/"+shas[1]+"/statuses$"); n != 0 {
		t.Errorf("the walk went past the first commit with a status: %d listings of %s", n, shas[1])
	}
	before := w.srv.Seen("GET", ".")
	if _, _, _, err := c.Recorded(context.Background(), spec, ""); err != nil || w.srv.Seen("GET", ".") != before {
		t.Errorf("a second Recorded read again (%d requests, %v)", w.srv.Seen("GET", ".")-before, err)
	}
	// A new read (check --wait polls) reads the head's statuses again,
	// not those of older commits: ralph-ci sets statuses on the head only.
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	head, older := w.srv.Seen("GET", "/commits/"+shas[4]+"/statuses$"), w.srv.Seen("GET", "/commits/"+shas[2]+"/statuses$")
	if desc, _, _, _ := c.Recorded(context.Background(), spec, ""); desc != "awaiting the human checkpoint (rejected 2/3 so far)" {
		t.Fatalf("Recorded = %q", desc)
	}
	if w.srv.Seen("GET", "/commits/"+shas[4]+"/statuses$") != head+1 || w.srv.Seen("GET", "/commits/"+shas[2]+"/statuses$") != older {
		t.Errorf("after a new Read: the head's statuses read %d more times (want 1), an older commit's %d (want 0)",
			w.srv.Seen("GET", "/commits/"+shas[4]+"/statuses$")-head, w.srv.Seen("GET", "/commits/"+shas[2]+"/statuses$")-older)
	}
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.srv.SetStatus(shas[4], "ralph-ci/"+spec, "failure", "rejected 3 times: escalated")
	if desc, _, _, _ := c.Recorded(context.Background(), spec, ""); desc != "rejected 3 times: escalated" {
		t.Errorf("after a new Read, Recorded = %q: the statuses were not read again", desc)
	}
}

// The walk reads at most MaxLedgerCommits commits; the record's own
// commit is looked at when they have no status (a rewritten history).
func TestRecordedIsBounded(t *testing.T) {
	w := newWorld(t)
	const spec = "specs/a.spec.md"
	var shas []string
	for i := 1; i <= prchannel.MaxLedgerCommits+20; i++ {
		shas = append(shas, commitSHA(i))
	}
	w.srv.SetCommits(shas...)
	w.srv.SetStatus(shas[0], "ralph-ci/"+spec, "pending", "rejected (2/3): back to work")
	c := ledgerClient(t, w)
	if desc, _, found, err := c.Recorded(context.Background(), spec, ""); err != nil || found {
		t.Fatalf("Recorded went past %d commits: %q, %v", prchannel.MaxLedgerCommits, desc, err)
	}
	if n := w.srv.Seen("GET", "/statuses$"); n != prchannel.MaxLedgerCommits {
		t.Errorf("%d status listings, want %d", n, prchannel.MaxLedgerCommits)
	}
	gone := commitSHA(999) // no longer one of the pull request's commits
	w.srv.SetStatus(gone, "ralph-ci/"+spec, "failure", "rejected 3 times: escalated")
	if desc, _, found, err := c.Recorded(context.Background(), spec, gone); err != nil || !found || desc != "rejected 3 times: escalated" {
		t.Fatalf("the record's own commit was not read: %q, %v, %v", desc, found, err)
	}
}

// Stamps lists ralph-ci's statuses of the spec on the commit asked for,
// newest first, and walks the pull request's older commits only when none
// of them was set by the time asked (an escalation answered after a push).
func TestStampsReadTheCommitFirst(t *testing.T) {
	w := newWorld(t)
	const spec = "specs/a.spec.md"
	shas := []string{commitSHA(1), commitSHA(2), commitSHA(3)}
	w.srv.SetCommits(shas...)
	w.srv.SetStatus(shas[0], "ralph-ci/"+spec, "failure", "rejected 3 times: escalated")
	w.srv.SetStatus(shas[2], "ralph-ci/"+spec, "pending", "awaiting the human checkpoint")
	w.srv.SetStatus(shas[2], "ralph-ci/"+spec, "pending", "rejected (1/3): back to work")
	w.srv.AddStatus(fake.Status{SHA: shas[2], Context: "ralph-ci/" + spec, State: "success", Description: "approved by @alice", Creator: dep})
	c := ledgerClient(t, w)
	ctx := context.Background()
	late := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := c.Stamps(ctx, spec, shas[2], late)
	if err != nil || len(got) != 2 || got[0].Desc != "rejected (1/3): back to work" || got[1].Desc != "awaiting the human checkpoint" || got[0].SHA != shas[2] {
		t.Fatalf("Stamps = %+v, %v; want the head's two, newest first", got, err)
	}
	if n := w.srv.Seen("GET", "/pulls/2/commits"); n != 0 {
		t.Errorf("the commits were listed (%d) although the head's statuses decide", n)
	}
	early := got[1].At.Add(-time.Second) // before the head's first status
	got, err = c.Stamps(ctx, spec, shas[2], early)
	if err != nil || len(got) != 3 || got[2].SHA != shas[0] || got[2].Desc != "rejected 3 times: escalated" {
		t.Fatalf("Stamps before the head's first status = %+v, %v; want the oldest commit's escalation after the head's", got, err)
	}
}
