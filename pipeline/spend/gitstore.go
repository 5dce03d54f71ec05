package spend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Git runs git commands in the repository (deliver.Git does; so will
// internal/git).
type Git interface {
	Run(ctx context.Context, args ...string) (string, error)
	RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error)
}

// DayRefPrefix starts the refs on origin that hold the days' ledgers.
const DayRefPrefix = "refs/ralph-ci/spend/"

// GitRef is a Store in one ref of a remote: a commit whose tree holds
// ledger.json, descending from the day's anchor (see Proof). Store pushes
// with --force-with-lease naming the commit Load returned, so a job that
// lost the race gets ErrStale and tries again on the new ledger; with a
// Proof, Load returns only a proven ledger and Store records each update
// with ralph-ci's own status.
type GitRef struct {
	Git    Git
	Remote string // "origin"
	// Ref is the ledger's ref (refs/ralph-ci/spend/2026-11-25); "" is
	// today's by Now, so that a run that outlasts a UTC day goes on in
	// the next day's ledger.
	Ref string
	Now func() time.Time
	// Proof, when set (on GitHub), proves the ledger (see ProofContext).
	Proof Proof

	loaded  string            // the ref Load read last, which Store writes
	anchors map[string]string // the days' anchor commits, once made
}

var _ Store = (*GitRef)(nil)

// current is the ledger's ref now: Ref, or today's.
func (g *GitRef) current() string {
	if g.Ref != "" {
		return g.Ref
	}
	return DayRefPrefix + g.Now().UTC().Format(time.DateOnly)
}

// dayOf is the date ref is the ledger of.
func dayOf(ref string) string { return strings.TrimPrefix(ref, DayRefPrefix) }

// local is where the fetched ledger of ref is kept in the local repository.
func local(ref string) string {
	return "refs/ralph-ci/fetched/" + strings.TrimPrefix(ref, "refs/ralph-ci/")
}

// Anchor makes, in the local object store, the anchor of the day of the
// ledger ref: the commit of an empty ledger of the day, by ralph-ci,
// dated the day's start, with no parent: the same commit in every job,
// computed, never fetched.
func (g *GitRef) Anchor(ctx context.Context, ref string) (string, error) {
	if id := g.anchors[ref]; id != "" {
		return id, nil
	}
	day, err := time.Parse(time.DateOnly, dayOf(ref))
	if err != nil {
		return "", fmt.Errorf("%s: not a day's ledger ref", ref)
	}
	blob, err := g.Git.RunInput(ctx, anchorDoc(dayOf(ref)), "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	tree, err := g.Git.RunInput(ctx, []byte("100644 blob "+strings.TrimSpace(string(blob))+"\tledger.json\n"), "mktree")
	if err != nil {
		return "", err
	}
	who := fmt.Sprintf("ralph-ci <ralph-ci@users.noreply.github.com> %d +0000", day.Unix())
	commit := fmt.Sprintf("tree %s\nauthor %s\ncommitter %s\n\nralph-ci: spend ledger of %s\n", strings.TrimSpace(string(tree)), who, who, dayOf(ref))
	id, err := g.Git.RunInput(ctx, []byte(commit), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	if g.anchors == nil {
		g.anchors = map[string]string{}
	}
	g.anchors[ref] = strings.TrimSpace(string(id))
	return g.anchors[ref], nil
}

// Load fetches the ref; an absent ref is an empty ledger (with a Proof,
// the anchor pushed there first: see Proof). With a Proof, a ledger its
// rule refuses is ErrUnproven.
func (g *GitRef) Load(ctx context.Context) ([]byte, string, error) {
	ref := g.current()
	g.loaded = ref
	out, err := g.Git.Run(ctx, "ls-remote", "--refs", g.Remote, ref)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(out) == "" {
		if g.Proof == nil {
			return nil, "", nil
		}
		anchor, err := g.Anchor(ctx, ref)
		if err != nil {
			return nil, "", err
		}
		if _, err := g.Git.Run(ctx, "push", "--quiet", "--force-with-lease="+ref+":", g.Remote, anchor+":"+ref); err != nil && !stale(err) {
			return nil, "", fmt.Errorf("start the day's ledger at %s: %w", ref, err)
		}
	}
	if _, err := g.Git.Run(ctx, "fetch", "--no-tags", "--quiet", g.Remote, "+"+ref+":"+local(ref)); err != nil {
		return nil, "", err
	}
	line, err := g.Git.Run(ctx, "rev-list", "--parents", "-n", "1", local(ref))
	if err != nil {
		return nil, "", err
	}
	ids := strings.Fields(line)
	if len(ids) == 0 {
		return nil, "", fmt.Errorf("%s: no commit", ref)
	}
	var batch strings.Builder
	for _, id := range ids[:min(len(ids), 2)] {
		batch.WriteString(id + ":ledger.json\n")
	}
	raw, err := g.Git.RunInput(ctx, []byte(batch.String()), "cat-file", "--batch")
	if err != nil {
		return nil, "", err
	}
	docs := readBatch(raw)
	tip := record{id: ids[0]}
	if len(docs) > 0 && docs[0] != nil {
		if len(docs[0]) > 1<<20 {
			return nil, "", fmt.Errorf("%s: ledger.json is %d bytes, more than a ledger can be", ref, len(docs[0]))
		}
		tip.ok = json.Unmarshal(docs[0], &tip.doc) == nil
	}
	if g.Proof == nil {
		if docs == nil || docs[0] == nil {
			return nil, "", fmt.Errorf("%s: no ledger.json in %.12s", ref, ids[0])
		}
		return docs[0], ids[0], nil
	}
	var parent record
	if len(ids) == 2 && len(docs) == 2 && docs[1] != nil {
		parent = record{id: ids[1]}
		parent.ok = json.Unmarshal(docs[1], &parent.doc) == nil
	}
	anchor, err := g.Anchor(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	statuses, err := g.Proof.OwnStatuses(ctx, anchor, ProofContext)
	if err != nil {
		return nil, "", fmt.Errorf("read ralph-ci's own %s statuses on the day's anchor %.12s: %w", ProofContext, anchor, err)
	}
	if err := proven(tip, parent, statuses, anchor, dayOf(ref)); err != nil {
		return nil, "", err
	}
	return docs[0], ids[0], nil
}

// readBatch splits the output of git cat-file --batch into the objects'
// contents, nil for one that is missing.
func readBatch(raw []byte) [][]byte {
	var out [][]byte
	for len(raw) > 0 {
		nl := bytes.IndexByte(raw, '\n')
		if nl < 0 {
			break
		}
		f := strings.Fields(string(raw[:nl]))
		raw = raw[nl+1:]
		if len(f) != 3 {
			out = append(out, nil)
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size > len(raw) {
			break
		}
		out = append(out, raw[:size])
		raw = raw[min(size+1, len(raw)):]
	}
	return out
}

// stale tells whether a push failed because the ref moved.
func stale(err error) bool {
	return strings.Contains(err.Error(), "stale info") || strings.Contains(err.Error(), "rejected") || strings.Contains(err.Error(), "failed to update ref")
}

// Store commits doc on top of version (the day's anchor when "") and
// pushes it if the ref is still version on the remote; with a Proof, it
// then records the update with ralph-ci's own status on the anchor.
func (g *GitRef) Store(ctx context.Context, doc []byte, version string) error {
	ref := g.loaded
	if ref == "" {
		ref = g.current()
	}
	blob, err := g.Git.RunInput(ctx, doc, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	tree, err := g.Git.RunInput(ctx, []byte("100644 blob "+strings.TrimSpace(string(blob))+"\tledger.json\n"), "mktree")
	if err != nil {
		return err
	}
	parent := version
	if parent == "" {
		if parent, err = g.Anchor(ctx, ref); err != nil {
			return err
		}
	}
	args := []string{"-c", "user.name=ralph-ci", "-c", "user.email=ralph-ci@users.noreply.github.com",
		"commit-tree", strings.TrimSpace(string(tree)), "-m", "ralph-ci: spend ledger", "-p", parent}
	commit, err := g.Git.Run(ctx, args...)
	if err != nil {
		return err
	}
	_, err = g.Git.Run(ctx, "push", "--quiet", "--force-with-lease="+ref+":"+version, g.Remote, commit+":"+ref)
	if err != nil && stale(err) {
		return fmt.Errorf("%w (%v)", ErrStale, err)
	}
	if err != nil || g.Proof == nil {
		return err
	}
	var d ledgerDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return err
	}
	anchor, err := g.Anchor(ctx, ref)
	if err != nil {
		return err
	}
	if err := g.Proof.SetStatus(ctx, anchor, ProofContext, markText(commit, d.Spent)); err != nil {
		return fmt.Errorf("record the day's ledger %.12s with ralph-ci's own %s status (the token needs statuses: write): %w", commit, ProofContext, err)
	}
	return nil
}
