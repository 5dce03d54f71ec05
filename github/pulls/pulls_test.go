package pulls

import (
	"context"
	"testing"

	"github.com/ralph-ci/ralph-ci/github"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// newClient is the client of repository at apiURL with token, built by
// the GitHub port.
func newClient(apiURL, token, repository string) (*Client, error) {
	c, err := github.New(github.Config{APIURL: apiURL, Token: token})
	if err != nil {
		return nil, err
	}
	r, err := github.RepoOf(c, repository)
	if err != nil {
		return nil, err
	}
	return New(r), nil
}

func TestEnsureOpensThenUpdates(t *testing.T) {
	srv := fake.New(t, "octo", "repo", 2, "abc", "octo")
	c, err := newClient(srv.URL, "test-token", "octo/repo")
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
	c, err := newClient(srv.URL, "test-token", "octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Head(context.Background(), 2)
	if err != nil || h.Ref != "feature" || h.SHA != "def" || h.HeadRepo != "octo/repo" || h.BaseRepo != "octo/repo" {
		t.Fatalf("head %+v, %v", h, err)
	}
	if _, err := newClient("", "", "norepo"); err == nil {
		t.Fatal("a repository without owner was accepted")
	}
}
