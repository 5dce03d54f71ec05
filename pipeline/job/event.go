package job

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github/pulls"
	"github.com/ralph-ci/ralph-ci/internal/ghevent"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitauth"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Pulls is the client of the repository's pull requests.
func (e Env) Pulls() (*pulls.Client, error) {
	r, err := e.PR.Repo(zerolog.Nop())
	if err != nil {
		return nil, err
	}
	return pulls.New(r), nil
}

// ReadEvent reads the event payload; a comment's payload names no head
// branch, the API does.
func (e Env) ReadEvent(ctx context.Context) (deliver.Event, error) {
	ev, err := ghevent.Read(e.PR.EventName, e.PR.EventPath)
	if err != nil || ev.PR == 0 || ev.HeadRef != "" {
		return ev, err
	}
	c, err := e.Pulls()
	if err != nil {
		return ev, err
	}
	h, err := c.Head(ctx, ev.PR)
	if err != nil {
		return ev, err
	}
	ev.HeadRef, ev.HeadSHA, ev.HeadRepo, ev.BaseRepo = h.Ref, h.SHA, h.HeadRepo, h.BaseRepo
	ev.HeadCloneURL, ev.MaintainerCanModify = h.HeadCloneURL, h.MaintainerCanModify
	if ev.DefaultBranch == "" {
		ev.DefaultBranch = h.DefaultBranch
	}
	return ev, nil
}

// Target is the branch the loop works on in mode (one that pushes), from
// the event, and the event.
func (j *Job) Target(ctx context.Context, g deliver.Git, cfg *schema.Config, mode deliver.Mode) (deliver.Target, deliver.Event, error) {
	e := j.Env
	ev, err := e.ReadEvent(ctx)
	if err != nil {
		return deliver.Target{}, ev, exitcode.New(exitcode.Failure, err)
	}
	refName := e.RefName
	if refName == "" {
		refName, _ = g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	}
	t, err := mode.Target(ev, cfg.Delivery.Branch, refName)
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
func (j *Job) forkPush(t deliver.Target, ev deliver.Event) (deliver.Target, error) {
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
	igit.UseCredentials(OwnCredentials(j.hidden, j.Env.ServerURL, j.Env.PR.Token, "")...)
	j.Log.Info().Str("fork", ev.HeadRepo).Str("branch", t.ForkBranch).Msg("delivery: the fork allows maintainers: the work goes to its branch, pushed with the push-token")
	return t, nil
}

// StateBinder binds the loop's state to the commits it describes with
// ralph-ci's own commit statuses, on GitHub (GITHUB_REPOSITORY set); nil
// elsewhere: on a laptop the state refs are trusted as they are.
func (e Env) StateBinder() (deliver.Binder, error) {
	if e.PR.Repository == "" {
		return nil, nil
	}
	r, err := e.PR.Repo(zerolog.Nop())
	if err != nil {
		return nil, err
	}
	return pulls.New(r).WithLogin(e.PR.Login), nil
}
