package job

import (
	"context"
	"io"
	"sync"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/github/pulls"
	"github.com/ralph-ci/ralph-ci/internal/ghevent"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// read is what a session read at the door, shared by its copies
// (WithStdout).
type read struct {
	event    deliver.Event
	eventErr error
	headOnce sync.Once // a comment's payload names no head: the API's, asked once

	repo     github.Repo
	forge    *pulls.Client
	forgeErr error
}

// WithStdout is the session printing to w instead (check --json keeps
// what check prints); it shares what the session read.
func (s *Session) WithStdout(w io.Writer) *Session {
	c := *s
	c.Stdout = w
	return &c
}

// Open builds the session from what the door filled in j: the event payload is read (a missing one
// is no event), and the one client of the GitHub API is built when the
// job runs on GitHub (GITHUB_REPOSITORY set). Their errors wait for
// whoever needs them. A debug line says what was read.
func Open(j *Session) *Session {
	s := *j
	s.read = &read{}
	pr := j.Env.PR
	s.event, s.eventErr = ghevent.Read(pr.EventName, pr.EventPath)
	if pr.EventPath != "" {
		j.Log.Debug().Str("event", pr.EventName).Str("path", pr.EventPath).Int("pr", s.event.PR).Msg("job session: event read")
	}
	if pr.Repository != "" {
		c, err := github.New(pr.Client(j.Log))
		if err == nil {
			s.repo, err = github.RepoOf(c, pr.Repository)
		}
		if err == nil {
			s.forge = pulls.New(s.repo)
		}
		s.forgeErr = err
	}
	return &s
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

// PullRequest is the pull request of the event: pull_request and
// pull_request_target events carry it, issue_comment events carry an
// issue that is a pull request. ok is false outside a pull request (no
// event, a push, a schedule, a comment on a plain issue) and off GitHub
// (GITHUB_REPOSITORY not set).
func (s *Session) PullRequest() (number int, ok bool, err error) {
	if s.Env.PR.EventPath == "" || s.Env.PR.Repository == "" {
		return 0, false, nil
	}
	if s.eventErr != nil || s.event.PR == 0 {
		return 0, false, s.eventErr
	}
	return s.event.PR, true, nil
}

// MergeGroup is the event's merge group; ok is false on another event.
func (s *Session) MergeGroup() (prchannel.MergeGroup, bool, error) {
	if s.Env.PR.EventName != "merge_group" || s.Env.PR.EventPath == "" {
		return prchannel.MergeGroup{}, false, nil
	}
	if s.eventErr != nil {
		return prchannel.MergeGroup{}, false, s.eventErr
	}
	return prchannel.MergeGroupOf(s.event, s.Env.PR.EventPath)
}

// Repo is the repository's side of the job's one GitHub client, which
// every pull request's channel talks to; an error off GitHub or when it
// could not be built.
func (s *Session) Repo() (github.Repo, error) {
	if _, err := s.Forge(); err != nil {
		return github.Repo{}, err
	}
	return s.repo, nil
}

// Forge is the client of the repository's pull requests (github/pulls)
// on the job's one GitHub client; an error off GitHub or when it could
// not be built.
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
