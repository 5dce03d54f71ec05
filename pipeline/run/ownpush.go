package run

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
)

// ownPush tells whether this run was started by ralph-ci's own push: with
// a push-token, ralph-ci's push starts the repository's pull_request
// workflows, its own run workflow too; that run must not start a second
// loop on the branch the first one is delivering to. It is such a run
// when the event is a pull request's synchronize (a push) and the head it
// names is one of the loop's commits (a Ralph-Spec: trailer, read
// through the API: the checkout may not hold it). The example workflow's
// concurrency rule (one run per pull request at a time) does the rest.
func ownPush(ctx context.Context, j *job.Session) (bool, string, error) {
	e := j.Env
	if e.PushToken == "" || (e.PR.EventName != "pull_request" && e.PR.EventName != "pull_request_target") || e.PR.EventPath == "" {
		return false, "", nil
	}
	ev, err := j.Payload()
	if err != nil || ev.Action != "synchronize" || ev.HeadSHA == "" {
		return false, "", err
	}
	c, err := j.Forge()
	if err != nil {
		return false, "", err
	}
	msg, err := c.CommitMessage(ctx, ev.HeadSHA)
	if err != nil {
		return false, "", err
	}
	return deliver.LoopCommit(msg), ev.HeadSHA, nil
}
