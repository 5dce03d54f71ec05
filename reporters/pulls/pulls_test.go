package pulls

import (
	"context"
	"testing"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

func TestEnsureOpensThenUpdates(t *testing.T) {
	srv := fake.New(t, "octo", "repo", 2, "abc", "octo")
	c, err := New(srv.URL, "test-token", "octo/repo", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := c.Ensure(ctx, "ralph-ci/main", "main", "ralph-ci: work", "one")
	if err != nil || first.Number == 0 || first.URL == "" {
		t.Fatalf("open: %+v, %v", first, err)
	}
	again, err := c.Ensure(ctx, "ralph-ci/main", "main", "ralph-ci: work", "two")
	if err != nil || again != first {
		t.Fatalf("a second run opened another pull request: %+v (first %+v), %v", again, first, err)
	}
	if p := srv.OpenedPulls(); len(p) != 1 || p[0].Body != "two" || p[0].Head != "ralph-ci/main" || p[0].Base != "main" {
		t.Fatalf("pulls %+v", srv.OpenedPulls())
	}
	if n := srv.Seen("POST", "/repos/octo/repo/pulls"); n != 1 {
		t.Fatalf("%d creations, want 1", n)
	}
}

func TestHead(t *testing.T) {
	srv := fake.New(t, "octo", "repo", 2, "abc", "octo")
	srv.HeadFrom = func() string { return "def" }
	c, err := New(srv.URL, "test-token", "octo/repo", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Head(context.Background(), 2)
	if err != nil || h.Ref != "feature" || h.SHA != "def" || h.HeadRepo != "octo/repo" || h.BaseRepo != "octo/repo" {
		t.Fatalf("head %+v, %v", h, err)
	}
	if _, err := New("", "", "norepo", nil); err == nil {
		t.Fatal("a repository without owner was accepted")
	}
}
