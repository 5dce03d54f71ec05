package prchannel

import (
	"context"
	"fmt"
	"strings"
	"time"

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
	var given time.Time
	switch rec.DecidedKind {
	case tiers.KindReply:
		cm, _, err := c.api.Comments.GetComment(ctx, c.owner, c.repo, rec.DecidedID)
		if isNotFound(err) {
			return fmt.Sprintf("reply %d does not exist", rec.DecidedID), nil
		}
		if err != nil {
			return "", fmt.Errorf("reply %d: %w", rec.DecidedID, err)
		}
		if !c.onThisPull(cm) {
			return fmt.Sprintf("reply %d is not on pull request #%d", rec.DecidedID, c.pr), nil
		}
		if why := edited(cm); why != "" {
			return fmt.Sprintf("reply %d: %s", rec.DecidedID, why), nil
		}
		if cm.GetID() <= commentID {
			return fmt.Sprintf("reply %d is older than the checkpoint comment %d", rec.DecidedID, commentID), nil
		}
		_, text, _ := tiers.Route(cm.GetBody(), []tiers.Target{tg})
		a, author, given = tiers.Answer{ID: cm.GetID(), Kind: tiers.KindReply, Text: text}, cm.GetUser(), cm.GetCreatedAt().Time
	case tiers.KindReaction:
		reacts, err := c.allReactions(ctx, commentID)
		if err != nil {
			return "", err
		}
		for _, r := range reacts {
			if r.GetID() == rec.DecidedID {
				a, author, given = tiers.Answer{ID: r.GetID(), Kind: tiers.KindReaction, Text: r.GetContent(), OnComment: commentID}, r.GetUser(), r.CreatedAt
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
	// Read against the ledger: an answer given before the checkpoint was
	// presented for the commit the record names (an answer for an older
	// head, replayed), or while it stood elsewhere (back at work), is no
	// answer to it, whatever the marker's cursor says.
	asked := tiers.StatusPending
	if rec.Status == tiers.StatusSkipped {
		asked = tiers.StatusEscalated
	}
	stamps, err := c.Stamps(ctx, tg.Spec, rec.SHA, given)
	if err != nil {
		return "", err
	}
	if why := gate.Fits(stamps, rec.SHA, given, asked); why != "" {
		return fmt.Sprintf("%s %d was %s", a.Kind, a.ID, why), nil
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

// timedReaction is a reaction with the time GitHub recorded it (go-github
// v60's Reaction has no created_at).
type timedReaction struct {
	gh.Reaction
	CreatedAt time.Time `json:"created_at"`
}

// allReactions lists every reaction on a comment, with its time.
func (c *Client) allReactions(ctx context.Context, comment int64) ([]timedReaction, error) {
	var out []timedReaction
	for page := 1; ; {
		req, err := c.api.Requests.NewRequest("GET", fmt.Sprintf("repos/%s/%s/issues/comments/%d/reactions?per_page=100&page=%d", c.owner, c.repo, comment, page), nil)
		if err != nil {
			return nil, err
		}
		var batch []timedReaction
		resp, err := c.api.Requests.Do(ctx, req, &batch)
		if err != nil {
			return nil, fmt.Errorf("reactions on comment %d: %w", comment, err)
		}
		out = append(out, batch...)
		next, err := nextPage(resp, page, fmt.Sprintf("reactions on comment %d", comment))
		if next == 0 || err != nil {
			return out, err
		}
		page = next
	}
}
