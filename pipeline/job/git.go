package job

import (
	"context"

	"github.com/ralph-ci/ralph-ci/internal/gitauth"
)

// Before its first git command, ralph-ci hides the credential
// actions/checkout persisted in the git config (gitauth) and hands it to
// its own fetch and push only (internal/git); before a run starts any
// agent, it applies the config's environment.remove (see docs/security.md).

// UseGitCredential hides the credential actions/checkout persisted in
// the checkout's git config until the returned function puts it back,
// and hands ralph-ci's own fetch and push the job's credentials
// (gitauth.Use, gitauth.Own) from the first fetch on. The session keeps
// what it hid: a fork's push gives it back to origin's commands, and the
// run's host masks it (RunHost).
func (j *Session) UseGitCredential(ctx context.Context, root string) (restore func()) {
	hidden, restore := gitauth.Use(ctx, root, j.Env.ServerURL, j.Env.PR.Token, j.Env.PushToken, func(msg string, err error) {
		j.Log.Warn().Err(err).Msg(msg)
	})
	j.hidden, j.hiddenValues = hidden.Credentials(), hidden.Values()
	return restore
}
