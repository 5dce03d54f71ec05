package prchannel

import (
	"context"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// ProgressMarker is the hidden marker of the one progress comment of a
// pull request: found again by it (and ralph-ci's own identity) across
// runs and jobs, edited in place.
const ProgressMarker = "<!-- ralph-ci:progress -->"

// Progress keeps the one progress comment of the pull request: created
// once, then edited in place, at most once every Every (the final update
// always goes out). Two jobs that both created one converge on the
// oldest: the other is deleted.
type Progress struct {
	c      *Client
	Every  time.Duration
	Now    func() time.Time
	id     int64
	looked bool // the comments were searched for it once
	last   time.Time
	sent   string // the body last written
}

// Progress returns the pull request's progress comment keeper.
func (c *Client) Progress(every time.Duration) *Progress {
	return &Progress{c: c, Every: every, Now: time.Now}
}

// Update shows body (with the marker) in the progress comment: skipped
// when the last write was less than Every ago (unless final) or the body
// is unchanged.
func (p *Progress) Update(ctx context.Context, body string, final bool) error {
	if p.c.readOnly {
		return nil
	}
	now := p.Now()
	body = ProgressMarker + "\n" + body
	if len(body) > tiers.MaxCommentChars {
		body = body[:tiers.MaxCommentChars-20] + "\n\n(cut)\n"
	}
	if body == p.sent || (!final && !p.last.IsZero() && now.Sub(p.last) < p.Every) {
		return nil
	}
	if err := p.look(ctx); err != nil {
		return err
	}
	if p.id != 0 {
		_, _, err := p.c.api.Comments.EditComment(ctx, p.c.owner, p.c.repo, p.id, &gh.IssueComment{Body: &body})
		if err == nil || !isNotFound(err) {
			if err == nil {
				p.sent, p.last = body, now
			}
			return wrapProgress(err)
		}
		p.id = 0 // deleted meanwhile: post it again
	}
	cm, _, err := p.c.api.Comments.CreateComment(ctx, p.c.owner, p.c.repo, p.c.pr, &gh.IssueComment{Body: &body})
	if err != nil {
		return wrapProgress(err)
	}
	p.id, p.sent, p.last = cm.GetID(), body, now
	if login := cm.GetUser().GetLogin(); login != "" {
		p.c.self = login
	}
	return p.dedupe(ctx)
}

// look finds the progress comment, once per keeper (a job).
func (p *Progress) look(ctx context.Context) error {
	if p.looked {
		return nil
	}
	id, err := p.find(ctx)
	p.id, p.looked = id, err == nil
	return err
}

// find is the oldest progress comment of ralph-ci's own (0 if none).
func (p *Progress) find(ctx context.Context) (int64, error) {
	p.c.whoAmI(ctx)
	all, err := p.c.comments(ctx)
	if err != nil {
		return 0, err
	}
	for _, cm := range all { // oldest first
		if strings.HasPrefix(cm.GetBody(), ProgressMarker) && p.c.own(cm.GetUser()) {
			return cm.GetID(), nil
		}
	}
	return 0, nil
}

// dedupe: another job may have posted one too, at the same moment; the
// oldest is kept by both, the newer deleted.
func (p *Progress) dedupe(ctx context.Context) error {
	oldest, err := p.find(ctx)
	if err != nil || oldest == 0 || oldest == p.id {
		return err
	}
	if _, err := p.c.api.Comments.DeleteComment(ctx, p.c.owner, p.c.repo, p.id); err != nil && !isNotFound(err) {
		return wrapProgress(err)
	}
	p.id, p.sent = oldest, ""
	return nil
}

func wrapProgress(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("the progress comment: %w", err)
}
