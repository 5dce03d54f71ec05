package deliver

import (
	"context"
	"strings"
	"testing"
)

func TestTargetOf(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ev         Event
		configured string
		refName    string
		want       Target
		wantErr    bool
	}{
		{"pull request", Event{PR: 7, HeadRef: "feature", DefaultBranch: "main"}, "ignored", "7/merge", Target{Branch: "feature", PR: 7, DefaultBranch: "main"}, false},
		{"fork", Event{PR: 7, HeadRef: "main", HeadRepo: "a/x", BaseRepo: "b/x", DefaultBranch: "main"}, "", "", Target{Branch: "ralph-ci/pr-7", PR: 7, Fork: true, Own: true, DefaultBranch: "main"}, false},
		{"dispatch on main", Event{DefaultBranch: "main"}, "", "main", Target{Branch: "ralph-ci/main", Own: true, DefaultBranch: "main"}, false},
		{"dispatch on its own branch", Event{DefaultBranch: "main"}, "", "ralph-ci/main", Target{Branch: "ralph-ci/main", Own: true, DefaultBranch: "main"}, false},
		{"configured", Event{DefaultBranch: "main"}, "bot/loop", "main", Target{Branch: "bot/loop", Own: true, DefaultBranch: "main"}, false},
		{"configured default branch", Event{DefaultBranch: "main"}, "main", "", Target{}, true},
		{"pull request without a head", Event{PR: 3}, "", "", Target{}, true},
		{"bad name", Event{}, "a..b", "", Target{}, true},
	} {
		got, err := TargetOf(tc.ev, tc.configured, tc.refName)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("%s: %+v, %v; want %+v (error %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestResumeInTheSameCheckout: after a crash, a run in the same checkout
// keeps its newer local state instead of origin's older one, and a state
// file committed to the repository is never taken for it.
func TestResumeInTheSameCheckout(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	write(t, dir, "app.txt", "work\n")
	write(t, dir, ".ralph/state.json", `{"iteration":1}`)
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".ralph/state.json", `{"iteration":1,"pending":{}}`) // then killed before any push
	again := &Session{Git: s.Git, StateDir: s.StateDir, Target: prTarget, Push: true, Reports: s.Reports}
	if _, err := again.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, ".ralph/state.json"); got != `{"iteration":1,"pending":{}}` {
		t.Fatalf("the local state was replaced: %q", got)
	}
	w.humanPush("feature", "x.txt", "x\n") // origin moves on: the state ref is unchanged, so local still continues it
	other := w.PRJob()
	s2 := w.session(other, prTarget)
	// A .ralph committed to the repository, marker included.
	write(t, other, ".ralph/delivery.json", `{"branch":"feature","state":"`+w.Rev(StateRef("feature"))+`"}`)
	write(t, other, ".ralph/state.json", `{"forged":true}`)
	git(t, other, "add", "-f", ".ralph")
	git(t, other, "commit", "--quiet", "-m", "commit the state")
	if _, err := s2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if got := read(t, other, ".ralph/state.json"); got != `{"iteration":1}` {
		t.Fatalf("a fresh checkout did not take origin's state: %q", got)
	}
}

// A fork's pull request is delivered to the fork's own branch only when
// its owner allows maintainers, a push token is given and the fork's
// clone URL is on the token's server; otherwise the base repository's
// branch, with a reason.
func TestForkPush(t *testing.T) {
	fork := Target{Branch: "ralph-ci/pr-7", PR: 7, Fork: true, Own: true, DefaultBranch: "main"}
	ev := Event{PR: 7, HeadRef: "feature", HeadRepo: "a/x", BaseRepo: "b/x", HeadCloneURL: "https://github.com/a/x.git", MaintainerCanModify: true}
	pushed := fork
	pushed.ForkURL, pushed.ForkBranch, pushed.Own = "https://github.com/a/x.git", "feature", false
	with := func(f func(*Event)) Event { e := ev; f(&e); return e }
	for _, tc := range []struct {
		name    string
		t       Target
		ev      Event
		token   bool
		server  string
		want    Target
		wantWhy string
	}{
		{"allowed", fork, ev, true, "https://github.com", pushed, ""},
		{"not a fork", Target{Branch: "feature", PR: 7}, ev, true, "https://github.com", Target{Branch: "feature", PR: 7}, ""},
		{"maintainers not allowed", fork, with(func(e *Event) { e.MaintainerCanModify = false }), true, "https://github.com", fork, "does not allow maintainers"},
		{"no push token", fork, ev, false, "https://github.com", fork, "no push-token is given"},
		{"another server", fork, ev, true, "https://github.example.com", fork, "is not on https://github.example.com/"},
		{"a look-alike host", fork, with(func(e *Event) { e.HeadCloneURL = "https://github.com.evil.example/a/x.git" }), true, "https://github.com", fork, "is not on"},
		{"no server", fork, ev, true, "", fork, "is not on"},
		{"bad branch", fork, with(func(e *Event) { e.HeadRef = "-x" }), true, "https://github.com", fork, "not a valid branch name"},
	} {
		got, why := ForkPush(tc.t, tc.ev, tc.token, tc.server)
		if got != tc.want || (tc.wantWhy == "") != (why == "") || !strings.Contains(why, tc.wantWhy) {
			t.Errorf("%s: %+v, %q; want %+v, %q", tc.name, got, why, tc.want, tc.wantWhy)
		}
	}
}
