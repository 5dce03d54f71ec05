package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
)

// ForkRunCommand and ForkRunLabel are how a person with write access asks
// ralph-ci to run on a fork's pull request: a comment that starts with
// the command, or the label.
const (
	ForkRunCommand = deliver.ForkRunCommand
	ForkRunLabel   = deliver.ForkRunLabel
)

// forkAsked tells whether run may work on the event's pull request when
// it comes from a fork: only when a person with write access asked, on
// this event (an issue_comment starting with /ralph-ci run, or the label
// ralph-ci run added on pull_request_target), checked with the
// collaborator API. fork is false for a pull request of the repository
// itself (nothing to ask); why says why not when it was not asked.
func forkAsked(ctx context.Context, j *job.Session) (fork, asked bool, why string, err error) {
	ev, err := j.Event(ctx)
	if err != nil || ev.PR == 0 || !ev.Fork() {
		return false, false, "", err
	}
	var who string
	switch {
	case ev.Name == "issue_comment" && strings.HasPrefix(strings.TrimSpace(ev.Comment), ForkRunCommand):
		who = ev.Commenter
	case ev.Name == "pull_request_target" && ev.Action == "labeled" && ev.Label == ForkRunLabel:
		who = ev.Sender
	default:
		return true, false, fmt.Sprintf("pull request #%d comes from a fork (%s): run works on it only when a person with write access asks (a %q comment, or the label %q)", ev.PR, ev.HeadRepo, ForkRunCommand, ForkRunLabel), nil
	}
	c, err := j.Forge()
	if err != nil {
		return true, false, "", err
	}
	ok, err := c.CanWrite(ctx, who)
	if err != nil || ok {
		return true, ok, "", err
	}
	return true, false, fmt.Sprintf("@%s asked to run on pull request #%d from a fork, but may not write to the repository: only a person with write access can", who, ev.PR), nil
}
