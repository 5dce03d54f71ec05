package prchannel

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

var _ gate.Confirmer = (*Client)(nil)

// Confirm implements gate.Confirmer: it reads the reply comment or the
// reaction rec's decision rests on from GitHub and says why it does not
// support the decision ("" when it does).
func (c *Client) Confirm(ctx context.Context, tg tiers.Target, rec tiers.Record) (string, error) {
	commentID := tg.CommentID
	var a tiers.Answer
	var author *gh.User
	switch rec.DecidedKind {
	case tiers.KindReply:
		cm, _, err := c.gh.Issues.GetComment(ctx, c.owner, c.repo, rec.DecidedID)
		if isNotFound(err) {
			return fmt.Sprintf("reply %d does not exist", rec.DecidedID), nil
		}
		if err != nil {
			return "", fmt.Errorf("reply %d: %w", rec.DecidedID, err)
		}
		if !c.onThisPull(cm) {
			return fmt.Sprintf("reply %d is not on pull request #%d", rec.DecidedID, c.pr), nil
		}
		if cm.GetID() <= commentID {
			return fmt.Sprintf("reply %d is older than the checkpoint comment %d", rec.DecidedID, commentID), nil
		}
		_, text, _ := tiers.Route(cm.GetBody(), []tiers.Target{tg})
		a, author = tiers.Answer{ID: cm.GetID(), Kind: tiers.KindReply, Text: text}, cm.GetUser()
	case tiers.KindReaction:
		reacts, err := c.allReactions(ctx, commentID)
		if err != nil {
			return "", err
		}
		for _, r := range reacts {
			if r.GetID() == rec.DecidedID {
				a, author = tiers.Answer{ID: r.GetID(), Kind: tiers.KindReaction, Text: r.GetContent(), OnComment: commentID}, r.GetUser()
			}
		}
		if author == nil {
			return fmt.Sprintf("reaction %d is not on the checkpoint comment %d", rec.DecidedID, commentID), nil
		}
	default:
		return fmt.Sprintf("answer kind %q is not one GitHub records", rec.DecidedKind), nil
	}
	if !strings.EqualFold(author.GetLogin(), rec.DecidedBy) {
		return fmt.Sprintf("%s %d was given by @%s, not @%s", a.Kind, a.ID, author.GetLogin(), rec.DecidedBy), nil
	}
	why, err := c.authorize(ctx, author)
	if err != nil || why != "" {
		return fmt.Sprintf("@%s may not answer: %s", author.GetLogin(), why), err
	}
	a.Author = author.GetLogin()
	if says := decisionOf(a, rec.Status); says != "" {
		return fmt.Sprintf("%s %d %s", a.Kind, a.ID, says), nil
	}
	return "", nil
}

// decisionOf says why answer a does not decide status ("" when it does).
func decisionOf(a tiers.Answer, status tiers.Status) string {
	switch status {
	case tiers.StatusApproved:
		if !tiers.ReadCheckpointAnswer(a).Approve {
			return "is not an approval"
		}
	case tiers.StatusSkipped:
		if tiers.ReadEscalationAnswer(a).Option != 3 {
			return "does not choose to skip the verification (option 3)"
		}
	}
	return ""
}

// onThisPull tells whether a comment is on the client's pull request.
func (c *Client) onThisPull(cm *gh.IssueComment) bool {
	return strings.HasSuffix(strings.ToLower(cm.GetIssueURL()), strings.ToLower(fmt.Sprintf("/repos/%s/%s/issues/%d", c.owner, c.repo, c.pr)))
}

// allReactions lists every reaction on a comment.
func (c *Client) allReactions(ctx context.Context, comment int64) ([]*gh.Reaction, error) {
	opts := &gh.ListOptions{PerPage: 100}
	var out []*gh.Reaction
	for {
		page, resp, err := c.gh.Reactions.ListIssueCommentReactions(ctx, c.owner, c.repo, comment, opts)
		if err != nil {
			return nil, fmt.Errorf("reactions on comment %d: %w", comment, err)
		}
		out = append(out, page...)
		next, err := nextPage(resp, opts.Page, fmt.Sprintf("reactions on comment %d", comment))
		if next == 0 || err != nil {
			return out, err
		}
		opts.Page = next
	}
}
