package job

import (
	"context"
	"errors"
	"fmt"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitauth"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// errNoRepository is Forge's error off GitHub.
var errNoRepository = errors.New("no GitHub repository (GITHUB_REPOSITORY is not set): the pull requests' API is out of reach")

// Target is the branch the loop works on in the job's mode (one that
// pushes), from the event, and the event.
func (j *Trusted) Target(ctx context.Context, g deliver.Git, cfg *schema.Config) (deliver.Target, deliver.Event, error) {
	e := j.Env
	ev, err := j.Event(ctx)
	if err != nil {
		return deliver.Target{}, ev, exitcode.New(exitcode.Failure, err)
	}
	refName := e.RefName
	if refName == "" {
		refName, _ = g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	}
	t, err := j.Mode.Target(ev, cfg.Delivery.Branch, refName)
	if err != nil {
		return t, ev, exitcode.New(exitcode.Usage, err)
	}
	t, err = j.forkPush(t, ev)
	return t, ev, err
}

// forkPush delivers a fork's pull request to the fork's own branch when
// its owner allows maintainers and the push-token can (deliver.ForkPush):
// the push token goes to git push of the fork's URL alone
// (igit.UsePushURL), and origin's commands go with the job's credential. Otherwise a log line says why the work goes to a
// branch of the base repository.
func (j *Session) forkPush(t deliver.Target, ev deliver.Event) (deliver.Target, error) {
	t, why := deliver.ForkPush(t, ev, j.Env.PushToken != "", j.Env.ServerURL)
	if why != "" {
		j.Log.Info().Msg("delivery: " + why)
	}
	if t.ForkURL == "" {
		return t, nil
	}
	if err := igit.UsePushURL(t.ForkURL, gitauth.Credential(t.ForkURL, j.Env.PushToken).Header); err != nil {
		return t, exitcode.New(exitcode.Failure, fmt.Errorf("pull request #%d: %w", ev.PR, err))
	}
	// The push-token goes to the fork's push alone: the base repository's
	// fetches and state pushes go with the job's own credential.
	igit.UseCredentials(gitauth.Own(j.hidden, j.Env.ServerURL, j.Env.PR.Token, "")...)
	j.Log.Info().Str("fork", ev.HeadRepo).Str("branch", t.ForkBranch).Msg("delivery: the fork allows maintainers: the work goes to its branch, pushed with the push-token")
	return t, nil
}
