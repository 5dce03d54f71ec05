package gitauth

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// Own are the credentials of ralph-ci's own fetch and push: the push
// token when the Action was given one (its push starts the repository's
// workflows, as a push with the job's token does not), else the
// checkout's hidden header when actions/checkout persisted one, else,
// with persist-credentials: false, the job's token for the server (none
// when either is unknown: a laptop's git uses its own credentials).
func Own(hidden []git.Credential, serverURL, token, pushToken string) []git.Credential {
	if pushToken != "" && serverURL != "" {
		return []git.Credential{Credential(serverURL, pushToken)}
	}
	if len(hidden) > 0 || serverURL == "" || token == "" {
		return hidden
	}
	return []git.Credential{Credential(serverURL, token)}
}

// Use hides the credential actions/checkout persisted in the git config
// of the checkout at root (Hide) until the returned function puts it
// back, and hands ralph-ci's own fetch and push (internal/git, nothing
// else it starts) their credentials (Own, from the job's serverURL,
// token and pushToken) from the first fetch on; the returned function
// also takes them and a fork's push URL back. What goes wrong goes to
// warn, which says what it costs: ralph-ci goes on.
func Use(ctx context.Context, root, serverURL, token, pushToken string, warn func(msg string, err error)) (*Hidden, func()) {
	if abs, err := filepath.Abs(root); err == nil { // the config files git names hold from the root, not from here (-C)
		root = abs
	}
	if _, err := git.Open(root); err != nil && !errors.Is(err, git.ErrNotRepo) {
		warn("git: cannot read the checkout", err)
	}
	hidden, err := Hide(ctx, root)
	if err != nil {
		warn("could not hide the git credential actions/checkout persisted: the agent may read it (use persist-credentials: false)", err)
	}
	git.UseCredentials(Own(hidden.Credentials(), serverURL, token, pushToken)...)
	return hidden, func() {
		git.UseCredentials()
		_ = git.UsePushURL("", "") // a fork's (pipeline/job's forkPush)
		if err := hidden.Restore(context.WithoutCancel(ctx)); err != nil {
			warn("could not put back the git credential actions/checkout persisted", err)
		}
	}
}
