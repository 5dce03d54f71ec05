package job

import (
	"context"
	"errors"
	"path/filepath"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitauth"
)

// Before its first git command, ralph-ci hides the credential
// actions/checkout persisted in the git config (gitauth) and hands it to
// its own fetch and push only (internal/git); before a run starts any
// agent, it applies the config's environment.remove (see docs/security.md).

// OwnCredentials are the credentials of ralph-ci's own fetch and push:
// the push token when the Action was given one (its push starts the
// repository's workflows, as a push with the job's token does not), else
// the checkout's hidden header when actions/checkout persisted one, else,
// with persist-credentials: false, the job's token for the server (none
// when either is unknown: a laptop's git uses its own credentials).
func OwnCredentials(hidden []igit.Credential, serverURL, token, pushToken string) []igit.Credential {
	if pushToken != "" && serverURL != "" {
		return []igit.Credential{gitauth.Credential(serverURL, pushToken)}
	}
	if len(hidden) > 0 || serverURL == "" || token == "" {
		return hidden
	}
	return []igit.Credential{gitauth.Credential(serverURL, token)}
}

// UseGitCredential hides the credential actions/checkout persisted in
// the checkout's git config until the returned function puts it back,
// and hands ralph-ci's own fetch and push (internal/git, nothing else it
// starts) the credential (OwnCredentials) from the first fetch on.
func (j *Session) UseGitCredential(ctx context.Context, root string) (restore func()) {
	if abs, err := filepath.Abs(root); err == nil { // the config files git names hold from the root, not from here (-C)
		root = abs
	}
	if _, err := igit.Open(root); err != nil && !errors.Is(err, igit.ErrNotRepo) {
		j.Log.Warn().Err(err).Msg("git: cannot read the checkout")
	}
	hidden, err := gitauth.Hide(ctx, root)
	if err != nil {
		j.Log.Warn().Err(err).Msg("could not hide the git credential actions/checkout persisted: the agent may read it (use persist-credentials: false)")
	}
	j.hidden, j.hiddenValues = hidden.Credentials(), hidden.Values()
	igit.UseCredentials(OwnCredentials(hidden.Credentials(), j.Env.ServerURL, j.Env.PR.Token, j.Env.PushToken)...)
	return func() {
		igit.UseCredentials()
		_ = igit.UsePushURL("", "") // a fork's (forkPush)
		if err := hidden.Restore(context.WithoutCancel(ctx)); err != nil {
			j.Log.Warn().Err(err).Msg("could not put back the git credential actions/checkout persisted")
		}
	}
}
