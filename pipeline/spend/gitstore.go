package spend

import (
	"context"
	"fmt"
	"strings"
)

// Git runs git commands in the repository (deliver.Git does; so will
// internal/git).
type Git interface {
	Run(ctx context.Context, args ...string) (string, error)
	RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error)
}

// DayRefPrefix starts the refs on origin that hold the days' ledgers.
const DayRefPrefix = "refs/ralph-ci/spend/"

// GitRef is a Store in one ref of a remote: a commit whose tree holds
// ledger.json. Store pushes with --force-with-lease naming the commit Load
// returned, so a job that lost the race gets ErrStale and tries again on
// the new ledger.
type GitRef struct {
	Git    Git
	Remote string // "origin"
	Ref    string // refs/ralph-ci/spend/2026-11-25
}

var _ Store = GitRef{}

// local is where the fetched ledger is kept in the local repository.
func (g GitRef) local() string {
	return "refs/ralph-ci/fetched/" + strings.TrimPrefix(g.Ref, "refs/ralph-ci/")
}

// Load fetches the ref; an absent ref is an empty ledger.
func (g GitRef) Load(ctx context.Context) ([]byte, string, error) {
	out, err := g.Git.Run(ctx, "ls-remote", "--refs", g.Remote, g.Ref)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(out) == "" {
		return nil, "", nil
	}
	if _, err := g.Git.Run(ctx, "fetch", "--no-tags", "--quiet", g.Remote, "+"+g.Ref+":"+g.local()); err != nil {
		return nil, "", err
	}
	id, err := g.Git.Run(ctx, "rev-parse", "--verify", g.local()+"^{commit}")
	if err != nil {
		return nil, "", err
	}
	doc, err := g.Git.RunInput(ctx, nil, "cat-file", "blob", id+":ledger.json")
	if err != nil {
		return nil, "", err
	}
	if len(doc) > 1<<20 {
		return nil, "", fmt.Errorf("%s: ledger.json is %d bytes, more than a ledger can be", g.Ref, len(doc))
	}
	return doc, id, nil
}

// Store commits doc on top of version and pushes it if the ref is still
// version on the remote.
func (g GitRef) Store(ctx context.Context, doc []byte, version string) error {
	blob, err := g.Git.RunInput(ctx, doc, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	tree, err := g.Git.RunInput(ctx, []byte("100644 blob "+strings.TrimSpace(string(blob))+"\tledger.json\n"), "mktree")
	if err != nil {
		return err
	}
	args := []string{"-c", "user.name=ralph-ci", "-c", "user.email=ralph-ci@users.noreply.github.com",
		"commit-tree", strings.TrimSpace(string(tree)), "-m", "ralph-ci: spend ledger"}
	if version != "" {
		args = append(args, "-p", version)
	}
	commit, err := g.Git.Run(ctx, args...)
	if err != nil {
		return err
	}
	_, err = g.Git.Run(ctx, "push", "--quiet", "--force-with-lease="+g.Ref+":"+version, g.Remote, commit+":"+g.Ref)
	if err != nil && (strings.Contains(err.Error(), "stale info") || strings.Contains(err.Error(), "rejected") || strings.Contains(err.Error(), "failed to update ref")) {
		return fmt.Errorf("%w (%v)", ErrStale, err)
	}
	return err
}
