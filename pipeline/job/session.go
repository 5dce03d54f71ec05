package job

import (
	"context"
	"io"
	"sync"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github/pulls"
	"github.com/ralph-ci/ralph-ci/internal/ghevent"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// Session is one job as the commands take it, built once at the door
// (Open): the job's flags, writers, log, environment and agent host
// (Job), the GitHub Actions event read once, and the forge client of the
// repository's pull requests built once. Nothing below a command reads
// the event or builds that client again: run, check and plan ask the
// session.
type Session struct {
	*Job
	*read
}

// read is what a session read at the door, shared by its copies
// (WithStdout).
type read struct {
	event    deliver.Event
	eventErr error
	headOnce sync.Once // a comment's payload names no head: the API's, asked once

	forge    *pulls.Client
	forgeErr error
}

// WithStdout is the session printing to w instead (check --json keeps
// what check prints); it shares what the session read.
func (s *Session) WithStdout(w io.Writer) *Session {
	j := *s.Job
	j.Stdout = w
	return &Session{Job: &j, read: s.read}
}

// Open builds the session of j: the event payload is read (a missing one
// is no event), and the client of the repository's pull requests is built
// when the job runs on GitHub (GITHUB_REPOSITORY set). Their errors wait
// for whoever needs them.
func Open(j *Job) *Session {
	s := &Session{Job: j, read: &read{}}
	s.event, s.eventErr = ghevent.Read(j.Env.PR.EventName, j.Env.PR.EventPath)
	if j.Env.PR.Repository != "" {
		repo, err := j.Env.PR.Repo(zerolog.Nop())
		if err == nil {
			s.forge = pulls.New(repo)
		}
		s.forgeErr = err
	}
	return s
}

// Event is the job's event; a comment's payload names no head branch, so
// for a pull request's comment the head is asked of the API, once.
func (s *Session) Event(ctx context.Context) (deliver.Event, error) {
	s.headOnce.Do(func() {
		ev := &s.event
		if s.eventErr != nil || ev.PR == 0 || ev.HeadRef != "" {
			return
		}
		c, err := s.Forge()
		if err != nil {
			s.eventErr = err
			return
		}
		h, err := c.Head(ctx, ev.PR)
		if err != nil {
			s.eventErr = err
			return
		}
		ev.HeadRef, ev.HeadSHA, ev.HeadRepo, ev.BaseRepo = h.Ref, h.SHA, h.HeadRepo, h.BaseRepo
		ev.HeadCloneURL, ev.MaintainerCanModify = h.HeadCloneURL, h.MaintainerCanModify
		if ev.DefaultBranch == "" {
			ev.DefaultBranch = h.DefaultBranch
		}
	})
	return s.event, s.eventErr
}

// Payload is the event as its payload says it, without asking the API
// anything (a comment's names no head).
func (s *Session) Payload() (deliver.Event, error) { return s.event, s.eventErr }

// Forge is the client of the repository's pull requests (github/pulls),
// built once; an error off GitHub or when it could not be built.
func (s *Session) Forge() (*pulls.Client, error) {
	if s.forge == nil && s.forgeErr == nil {
		return nil, errNoRepository
	}
	return s.forge, s.forgeErr
}

// StateBinder binds the loop's state to the commits it describes with
// ralph-ci's own commit statuses, on GitHub; nil elsewhere: on a laptop
// the state refs are trusted as they are.
func (s *Session) StateBinder() (deliver.Binder, error) {
	if s.Env.PR.Repository == "" {
		return nil, nil
	}
	c, err := s.Forge()
	if err != nil {
		return nil, err
	}
	return c.WithLogin(s.Env.PR.Login), nil
}
