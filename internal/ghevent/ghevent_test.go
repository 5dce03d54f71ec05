package ghevent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// events holds copies of real webhook examples (@octokit/webhooks-examples,
// github/prchannel/testdata/events/NOTE.md; .ci/run checks them upstream).
var events = filepath.Join("..", "..", "github", "prchannel", "testdata", "events")

// TestReadRealPayloads reads a real example of every event ralph-ci
// handles, each under the name Actions gives it.
func TestReadRealPayloads(t *testing.T) {
	hello := func(e Event) Event {
		e.BaseRepo, e.DefaultBranch, e.Sender = "Codertocat/Hello-World", "master", "Codertocat"
		return e
	}
	opened := hello(Event{Action: "opened", PR: 2, HeadRef: "changes", HeadSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
		HeadRepo: "Codertocat/Hello-World", HeadCloneURL: "https://github.com/Codertocat/Hello-World.git"})
	octo := Event{BaseRepo: "octo-org/octo-repo", DefaultBranch: "main", Sender: "octocat"}
	for _, tc := range []struct {
		name, file string
		want       Event
	}{
		{"pull_request", "pull_request.opened.json", opened},
		// pull_request_target gets the pull_request payload, run in the base.
		{"pull_request_target", "pull_request.opened.json", opened},
		{"pull_request", "pull_request.synchronize.json", func() Event {
			e := opened
			e.Action = "synchronize"
			return e
		}()},
		{"pull_request_target", "pull_request.labeled.json", func() Event {
			e := opened
			e.Action, e.Label = "labeled", "bug"
			return e
		}()},
		{"issue_comment", "issue_comment.created.json", hello(Event{Action: "created", Comment: "You are totally right! I'll get this fixed right away.", Commenter: "Codertocat"})}, // a plain issue
		{"merge_group", "merge_group.checks_requested.json", Event{Action: "checks_requested", BaseRepo: "octo-org/octo-repo", DefaultBranch: "main", Sender: "Codertocat",
			MergeGroup: MergeGroup{HeadSHA: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", HeadRef: "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", BaseSHA: "380387fbc80638b734a49e1be1c4dfec1c01b33c"}}},
		{"push", "push.json", hello(Event{})},
		{"workflow_dispatch", "workflow_dispatch.json", octo},
		{"schedule", "schedule.json", octo}, // no type in go-github: the keys every event has
	} {
		got, err := Read(tc.name, filepath.Join(events, tc.file))
		tc.want.Name = tc.name
		if err != nil || got != tc.want {
			t.Errorf("%s %s:\n got %+v, %v\nwant %+v", tc.name, tc.file, got, err, tc.want)
		}
	}
}

// TestParse: a comment on a pull request names it (its head comes from
// the API); a fork's pull request is one; bad payloads are errors naming
// the file, never a panic.
func TestParse(t *testing.T) {
	got, err := Parse("issue_comment", "x", []byte(`{"issue":{"number":9,"pull_request":{"url":"u"}}}`))
	if err != nil || got.PR != 9 || got.HeadRef != "" {
		t.Errorf("a comment on a pull request: %+v, %v", got, err)
	}
	got, err = Parse("pull_request_target", "x", []byte(`{"pull_request":{"number":2,"maintainer_can_modify":true,"head":{"repo":{"full_name":"someone/x"}},"base":{"repo":{"full_name":"o/x"}}}}`))
	if err != nil || !got.Fork() || !got.MaintainerCanModify || got.BaseRepo != "o/x" {
		t.Errorf("a fork's pull request: %+v, %v", got, err)
	}
	for _, bad := range []struct{ name, payload string }{{"pull_request", "{"}, {"push", "[]"}, {"pull_request", `{"pull_request":7}`},
		{"issue_comment", `{"issue":"x"}`}, {"merge_group", "\x00"}, {"schedule", `{"repository":[]}`}} {
		if _, err := Parse(bad.name, "bad.json", []byte(bad.payload)); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%q: %v, want an error naming bad.json", bad, err)
		}
	}
	for _, odd := range []string{"null", "{}", `{"pull_request":null,"issue":null}`} {
		if ev, err := Parse("issue_comment", "odd.json", []byte(odd)); err != nil || ev.PR != 0 {
			t.Errorf("%q: %+v, %v", odd, ev, err)
		}
	}
}

// TestReadBounded: no file is no event; a file that is not a regular file
// or is over the limit is refused before it is read; a payload without a
// name is an error that says which variable to set.
func TestReadBounded(t *testing.T) {
	if ev, err := Read("pull_request", ""); err != nil || ev != (Event{}) {
		t.Errorf("no event file: %+v, %v", ev, err)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(safefile.EventLimit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Read("pull_request", big); !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), big) {
		t.Errorf("an oversized payload: %v", err)
	}
	if _, err := Read("pull_request", dir); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Read("pull_request", filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH") {
		t.Errorf("a missing payload: %v", err)
	}
	if _, err := Read("", filepath.Join(events, "push.json")); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_NAME") {
		t.Errorf("a payload without a name: %v", err)
	}
}
