package pulls

import (
	"context"
	"slices"
	"testing"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// The binding statuses ralph-ci reads back are its own: set through the
// client (as the token's login, github-actions[bot] for a GITHUB_TOKEN,
// which may not read /user), newest first, across pages; a status of the
// same context and text set by a person with write access is not listed,
// nor one of another context.
func TestOwnStatuses(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	srv := fake.New(t, "octo", "repo", 2, sha, "octo")
	c, err := newClient(srv.URL, "test-token", "octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range []string{"state a of b", "state c of d", "state e of f"} {
		if err := c.SetStatus(ctx, sha, deliver.BindingContext, d); err != nil {
			t.Fatal(err)
		}
	}
	srv.AddStatus(fake.Status{SHA: sha, State: "success", Context: deliver.BindingContext, Description: "state forged of " + sha, Creator: fake.User{Login: "mallory", Type: "User"}})
	srv.AddStatus(fake.Status{SHA: sha, State: "success", Context: "ralph-ci/other", Description: "state g of h"})
	got, err := c.OwnStatuses(ctx, sha, deliver.BindingContext)
	if want := []string{"state e of f", "state c of d", "state a of b"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("own statuses %q, %v; want %q", got, err, want)
	}
	// Another login named: the bot's statuses are not its own.
	c2, _ := newClient(srv.URL, "test-token", "octo/repo")
	if got, err := c2.WithLogin("@my-app[bot]").OwnStatuses(ctx, sha, deliver.BindingContext); err != nil || len(got) != 0 {
		t.Fatalf("my-app[bot]'s statuses %q, %v; want none", got, err)
	}
}
