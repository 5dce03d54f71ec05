package prchannel

import (
	"context"
	"fmt"
	"io"
	"os"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// NoPermissionMessage is logged once when the token may not write.
const NoPermissionMessage = "the GitHub token may not write to this pull request (give the job `permissions: {pull-requests: write, statuses: write}`): checkpoints go to the annotations and the job summary instead"

// Publish implements gate.Channel: it edits the spec's checkpoint comment
// (or creates it once) with the record's text and marker.
func (c *Client) Publish(ctx context.Context, spec string, s tiers.Slice, rec tiers.Record) (int64, error) {
	body := tiers.CommentBody(spec, s, rec)
	if c.readOnly {
		return 0, c.fallback(spec, s, rec)
	}
	if id := rec.CommentID; id != 0 {
		if c.bodies[id] == body {
			return id, nil
		}
		_, _, err := c.api.Comments.EditComment(ctx, c.owner, c.repo, id, &gh.IssueComment{Body: &body})
		if err == nil {
			c.bodies[id] = body
			return id, nil
		}
		switch {
		case isNotFound(err):
			// Deleted since it was read: post it again.
			c.log.Info().Int64("comment", id).Str("spec", spec).Msg("the checkpoint comment is gone; posting it again")
		case isNoPermission(err):
			return 0, c.denied(spec, s, rec, err)
		default:
			return 0, fmt.Errorf("edit comment %d: %w", id, err)
		}
	}
	cm, _, err := c.api.Comments.CreateComment(ctx, c.owner, c.repo, c.pr, &gh.IssueComment{Body: &body})
	if err != nil && isServerError(err) {
		// The comment may exist even though the server failed: look
		// before creating it again, so that it is never duplicated.
		if id, found, lerr := c.find(ctx, spec); lerr == nil && found {
			_, _, err = c.api.Comments.EditComment(ctx, c.owner, c.repo, id, &gh.IssueComment{Body: &body})
			c.bodies[id] = body
			return id, err
		}
		cm, _, err = c.api.Comments.CreateComment(ctx, c.owner, c.repo, c.pr, &gh.IssueComment{Body: &body})
	}
	if err != nil {
		if isNoPermission(err) {
			return 0, c.denied(spec, s, rec, err)
		}
		return 0, fmt.Errorf("create the checkpoint comment: %w", err)
	}
	c.bodies[cm.GetID()] = body
	if login := cm.GetUser().GetLogin(); login != "" {
		c.self = login // who the token posts as, whatever /user said
	}
	return cm.GetID(), nil
}

// find looks for the tool's checkpoint comment of spec.
func (c *Client) find(ctx context.Context, spec string) (int64, bool, error) {
	all, err := c.comments(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, cm := range all {
		if m, _ := tiers.ParseMarker(cm.GetBody()); m.Spec == spec && c.own(cm.GetUser()) {
			return cm.GetID(), true, nil
		}
	}
	return 0, false, nil
}

// Status implements gate.Channel: the commit status ralph-ci/<spec> on
// the pull request's head.
func (c *Client) Status(ctx context.Context, spec, state, description string) error {
	if c.readOnly || c.head == "" {
		return nil
	}
	ctxName := StatusPrefix + spec
	if len(description) > 140 {
		description = description[:137] + "..."
	}
	st := &gh.RepoStatus{State: &state, Description: &description, Context: &ctxName}
	if c.prURL != "" {
		st.TargetURL = &c.prURL // whose record it is (see Recorded)
	}
	_, _, err := c.api.Statuses.CreateStatus(ctx, c.owner, c.repo, c.head, st)
	delete(c.statuses, c.head) // read again when asked
	if err != nil && isNoPermission(err) {
		c.log.Warn().Err(err).Str("spec", spec).Msg("the GitHub token may not set commit statuses (permissions: statuses: write); the check's exit code is the gate")
		return nil
	}
	return err
}

// denied switches to the fallback after a refused write.
func (c *Client) denied(spec string, s tiers.Slice, rec tiers.Record, err error) error {
	c.readOnly = true
	c.log.Error().Err(err).Msg(NoPermissionMessage)
	return c.fallback(spec, s, rec)
}

// fallback shows the checkpoint as a workflow annotation and in the job
// summary.
func (c *Client) fallback(spec string, s tiers.Slice, rec tiers.Record) error {
	text := tiers.Shown(s, rec) + "\n" + tiers.Note(spec, rec)
	if c.annotations != nil {
		if err := actions.WriteAnnotation(c.annotations, actions.Annotation{Level: actions.LevelWarning, File: spec, Line: 1, Title: "ralph-ci checkpoint: " + spec, Message: text}); err != nil {
			return err
		}
	}
	if c.actions.StepSummary == "" {
		return nil
	}
	f, err := os.OpenFile(c.actions.StepSummary, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	_, err = io.WriteString(f, fmt.Sprintf("\n### ralph-ci checkpoint: `%s`\n\n> %s\n\n```text\n%s```\n\n%s\n", spec, NoPermissionMessage, tiers.Shown(s, rec), tiers.Note(spec, rec)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
