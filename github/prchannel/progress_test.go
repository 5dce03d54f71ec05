package prchannel

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// progressClient is a Client of pull request #1 of s.
func progressClient(t *testing.T, s *fake.Server) *Client {
	t.Helper()
	repo := RepoForTest(t, github.Config{APIURL: s.URL + "/", Token: "test-token", Retry: github.Retry{Attempts: 1}}, "o/r")
	return New(repo, Options{PR: 1, Log: zerolog.Nop()})
}

// progressComments are the progress comments on pull request 1.
func progressComments(s *fake.Server) []fake.Comment {
	var out []fake.Comment
	for _, c := range s.CommentsOn(1) {
		if strings.HasPrefix(c.Body, ProgressMarker) {
			out = append(out, c)
		}
	}
	return out
}

// One progress comment per pull request: created once, edited in place
// at most once an interval (a fake clock), the final update always; a
// later job finds it again by its marker.
func TestProgressCommentIsEditedInPlace(t *testing.T) {
	s := fake.New(t, "o", "r", 1, "abc123", "author")
	clock := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	p := progressClient(t, s).Progress(10 * time.Second)
	p.Now = func() time.Time { return clock }
	ctx := context.Background()
	for i := range 6 { // a rotation every 3 s
		if err := p.Update(ctx, "rotation "+string(rune('1'+i)), false); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(3 * time.Second)
	}
	if err := p.Update(ctx, "ended", true); err != nil {
		t.Fatal(err)
	}
	all := progressComments(s)
	if len(all) != 1 || !strings.HasSuffix(all[0].Body, "\nended") {
		t.Fatalf("progress comments %+v, want one that says ended", all)
	}
	// 18 s of rotations every 3 s with a 10 s interval: written at 0, 12
	// s (rotations 1 and 5), then the final one.
	if posts, edits := s.Seen("POST", `/issues/1/comments$`), s.Seen("PATCH", `/issues/comments/`); posts != 1 || edits != 2 {
		t.Fatalf("%d comments posted, %d edits; want 1 and 2", posts, edits)
	}

	// The next job edits the same comment.
	next := progressClient(t, s).Progress(10 * time.Second)
	if err := next.Update(ctx, "the next run", false); err != nil {
		t.Fatal(err)
	}
	if all := progressComments(s); len(all) != 1 || !strings.HasSuffix(all[0].Body, "\nthe next run") {
		t.Fatalf("after the next job: %+v, want the one comment edited", all)
	}
}

// Two overlapping jobs that both find no progress comment and both post
// one end with one: the newer is deleted, both edit the oldest.
func TestOverlappingJobsLeaveOneProgressComment(t *testing.T) {
	s := fake.New(t, "o", "r", 1, "abc123", "author")
	ctx := context.Background()
	var wg sync.WaitGroup
	keepers := make([]*Progress, 2)
	for i := range keepers {
		keepers[i] = progressClient(t, s).Progress(0)
	}
	// Both look before either posts: the worst interleaving.
	for _, k := range keepers {
		if err := k.look(ctx); err != nil || k.id != 0 {
			t.Fatalf("look: %d, %v", k.id, err)
		}
	}
	for i, k := range keepers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.Update(ctx, "job "+string(rune('A'+i)), false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, k := range keepers {
		if err := k.Update(ctx, "job "+string(rune('A'+i))+" again", true); err != nil {
			t.Fatal(err)
		}
	}
	if all := progressComments(s); len(all) != 1 {
		t.Fatalf("%d progress comments after two overlapping jobs, want 1: %+v", len(all), all)
	}
}
