package prchannel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

var _ gate.Channel = (*Client)(nil)

// Read implements gate.Channel: the pull request's head, the checkpoint
// comments (ours: a marker, posted by a bot or by the token's own user)
// and the authorized answers given after the oldest open checkpoint.
func (c *Client) Read(ctx context.Context) (gate.Snapshot, error) {
	pr, _, err := c.api.PullRequests.Get(ctx, c.owner, c.repo, c.pr)
	if err != nil {
		return gate.Snapshot{}, fmt.Errorf("pull request #%d: %w", c.pr, err)
	}
	prev := c.head
	c.head, c.prAuthor, c.prURL = pr.GetHead().GetSHA(), pr.GetUser().GetLogin(), pr.GetHTMLURL()
	c.forget(prev)
	c.trust(ctx, pr)
	c.whoAmI(ctx)
	comments, err := c.comments(ctx)
	if err != nil {
		return gate.Snapshot{}, err
	}
	snap := gate.Snapshot{PR: c.pr, Head: c.head, Comments: map[string]gate.Comment{}, Reactions: map[int64][]tiers.Answer{}}
	since := int64(-1)
	var others []*gh.IssueComment
	for _, cm := range comments {
		snap.LastComment = max(snap.LastComment, cm.GetID())
		c.bodies[cm.GetID()] = cm.GetBody()
		if !tiers.HasMarker(cm.GetBody()) {
			others = append(others, cm)
			continue
		}
		if !c.own(cm.GetUser()) {
			c.log.Warn().Int64("comment", cm.GetID()).Str("author", cm.GetUser().GetLogin()).Str("ralph_ci", c.self).
				Msgf("forged checkpoint marker in comment %d by @%s: only ralph-ci's own comments (@%s) hold checkpoints; it is ignored", cm.GetID(), cm.GetUser().GetLogin(), c.self)
			continue
		}
		m, merr := tiers.ParseMarker(cm.GetBody())
		if m.Spec == "" {
			continue
		}
		if prev, dup := snap.Comments[m.Spec]; dup {
			c.log.Warn().Str("spec", m.Spec).Int64("kept", prev.ID).Int64("duplicate", cm.GetID()).Msg("two checkpoint comments for one spec: the oldest is used")
			continue
		}
		snap.Comments[m.Spec] = gate.Comment{ID: cm.GetID(), Marker: m, Err: merr}
		if merr == nil && m.Record.Open() && (since < 0 || m.Record.AfterComment < since) {
			since = m.Record.AfterComment
		}
		if merr == nil && m.Record.Open() {
			reacts, err := c.reactions(ctx, cm.GetID(), m.Record.AfterReaction)
			if err != nil {
				return gate.Snapshot{}, err
			}
			snap.Reactions[cm.GetID()] = reacts
		}
	}
	if since < 0 {
		return snap, nil // nothing open on the pull request
	}
	for _, cm := range others {
		if cm.GetID() <= since {
			continue
		}
		why, err := c.authorize(ctx, cm.GetUser())
		if err != nil {
			return gate.Snapshot{}, err
		}
		if why == "" {
			why = edited(cm)
		}
		if why != "" {
			c.ignored(cm.GetID(), "reply", cm.GetUser().GetLogin(), why)
			continue
		}
		snap.Replies = append(snap.Replies, tiers.Answer{ID: cm.GetID(), Kind: tiers.KindReply, Author: cm.GetUser().GetLogin(), Text: cm.GetBody(), Given: cm.GetCreatedAt().Time})
	}
	return snap, nil
}

// edited says why a reply that was edited after it was given is not an
// answer ("" when it was not): anyone with write access may edit anyone's
// comment, and GitHub's REST API does not say who did, so the text is no
// longer surely its author's.
func edited(cm *gh.IssueComment) string {
	if !cm.GetUpdatedAt().After(cm.GetCreatedAt().Time) {
		return ""
	}
	return fmt.Sprintf("the reply was edited after it was given (at %s; anyone with write access may edit a comment): answer again in a new reply",
		cm.GetUpdatedAt().UTC().Format(time.RFC3339))
}

// ActionsLogin is the author of the comments a GITHUB_TOKEN posts. Such a
// token may not read /user, so it is who ralph-ci is until /user or a
// comment it posts says otherwise, unless jobenv.PR.Login names the login (a
// GitHub App's installation token, which may not read /user either).
const ActionsLogin = github.ActionsLogin

// own tells whether a comment with a marker is the tool's: posted by the
// token's own login (never "any bot": dependabot's or another app's
// comments are not ralph-ci's). What its marker claims is still only a
// cache: the gate confirms every decision with GitHub (gate.Confirmer).
// whoAmI settles the login the token writes as, once.
func (c *Client) whoAmI(ctx context.Context) {
	if c.self == "" {
		c.self = github.Self(ctx, c.api.Users, "")
	}
}

func (c *Client) own(u *gh.User) bool {
	return c.self != "" && strings.EqualFold(u.GetLogin(), c.self)
}

func (c *Client) ignored(id int64, kind, author, why string) {
	c.log.Info().Int64("id", id).Str("kind", kind).Str("author", author).Str("reason", why).Msg("answer ignored")
}

// comments lists every comment of the pull request, following the pages.
func (c *Client) comments(ctx context.Context) ([]*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var all []*gh.IssueComment
	for {
		page, resp, err := c.api.Comments.ListComments(ctx, c.owner, c.repo, c.pr, opts)
		if err != nil {
			return nil, fmt.Errorf("comments of pull request #%d: %w", c.pr, err)
		}
		all = append(all, page...)
		next, err := nextPage(resp, opts.Page, "comments of pull request #"+strconv.Itoa(c.pr))
		if next == 0 || err != nil {
			return all, err
		}
		opts.Page = next
	}
}

// reactions lists the authorized +1/-1 reactions on a comment after id,
// with the time each was given.
func (c *Client) reactions(ctx context.Context, comment, after int64) ([]tiers.Answer, error) {
	all, err := c.allReactions(ctx, comment)
	if err != nil {
		return nil, err
	}
	var out []tiers.Answer
	for _, r := range all {
		if r.GetID() <= after {
			continue
		}
		if r.GetContent() != "+1" && r.GetContent() != "-1" {
			c.ignored(r.GetID(), "reaction", r.GetUser().GetLogin(), fmt.Sprintf("reaction %q is not an answer (+1 = yes, -1 = no)", r.GetContent()))
			continue
		}
		why, err := c.authorize(ctx, r.GetUser())
		if err != nil {
			return nil, err
		}
		if why != "" {
			c.ignored(r.GetID(), "reaction", r.GetUser().GetLogin(), why)
			continue
		}
		out = append(out, tiers.Answer{ID: r.GetID(), Kind: tiers.KindReaction, Author: r.GetUser().GetLogin(), Text: r.GetContent(), OnComment: comment, Given: r.CreatedAt})
	}
	return out, nil
}

// MaxPages bounds the pages of one listing (100 items each): a server whose
// Link: rel="next" never ends, or points back, cannot hold a run.
const MaxPages = 200

// nextPage is the page after page (0: none), or an error when the
// listing what goes past MaxPages or does not move forward.
func nextPage(resp *gh.Response, page int, what string) (int, error) {
	next := resp.NextPage
	switch {
	case next == 0:
		return 0, nil
	case next <= page:
		return 0, fmt.Errorf("%s: the next page (%d) does not follow page %d; stopped", what, next, page)
	case next > MaxPages:
		return 0, fmt.Errorf("%s: more than %d pages; stopped", what, MaxPages)
	}
	return next, nil
}
