package deliver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ShardRefPrefix starts the refs holding the state of the shards of a
// matrix: refs/ralph-ci/shards/<K>-of-<N>/<branch>. Each shard pushes its
// work to the branch (rebasing onto the others' commits) and its state to
// its own ref, so that no shard clobbers another's state; the integration
// reads them, folds them into the branch's state ref and deletes them.
const ShardRefPrefix = "refs/ralph-ci/shards/"

// ShardRef is the state ref of the shard named shard ("2-of-4") of the
// loop working on branch.
func ShardRef(branch, shard string) string { return ShardRefPrefix + shard + "/" + branch }

// ShardState is the state one shard delivered, read back for the
// integration.
type ShardState struct {
	// Name is the shard ("2-of-4"), Ref its state ref and Commit the state
	// commit read.
	Name, Ref, Commit string
	// Dir holds the shard's saved state files (state.json, handoffs, …).
	Dir string
	// Described is the work commit the shard's state describes; Changed
	// the files that differ between it and HEAD (the work the shard has
	// not seen).
	Described string
	Changed   []string
	// Time is when the state commit was made.
	Time time.Time
	// Unbound says why the state is not used ("" when it is): ralph-ci's
	// own status does not bind it to the commit it describes (IsBound).
	// Such a state is not restored.
	Unbound string
}

// FetchShardStates fetches every shard state of branch from origin
// (refs/ralph-ci/shards/*/<branch>) and restores each that is bound to
// the work commit it describes (IsBound with bd) into its own folder
// under root. They come sorted by name; none is no error.
func FetchShardStates(ctx context.Context, g Git, bd Binder, branch, root string) ([]ShardState, error) {
	// Listed first: a shallow fetch of a pattern that matches nothing fails.
	out, err := g.Run(ctx, "ls-remote", "--refs", "origin", ShardRefPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("list the shards' states: %w", err)
	}
	var states []ShardState
	fetch := []string{"-c", "protocol.version=2", "fetch", "--no-tags", "--quiet", "--depth=2", "origin"}
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(f[1], ShardRefPrefix), "/"+branch)
		if !ok || name == "" || strings.Contains(name, "/") {
			continue // another branch's shard
		}
		states = append(states, ShardState{Name: name, Ref: f[1], Commit: f[0], Dir: filepath.Join(root, name)})
		fetch = append(fetch, "+"+f[1]+":"+f[1])
	}
	if len(states) == 0 {
		return nil, nil
	}
	if _, err := g.Run(ctx, fetch...); err != nil {
		return nil, fmt.Errorf("fetch the shards' states: %w", err)
	}
	head, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	for i := range states {
		st := &states[i]
		when, err := g.Run(ctx, "log", "-1", "--format=%ct", st.Commit)
		if err != nil {
			return nil, fmt.Errorf("shard %s: %w", st.Name, err)
		}
		sec, _ := strconv.ParseInt(when, 10, 64)
		st.Time = time.Unix(sec, 0)
		b, ok, err := checkBound(ctx, g, bd, st.Ref, branch, st.Commit)
		if err != nil {
			return nil, fmt.Errorf("shard %s: %w", st.Name, err)
		}
		if !ok {
			st.Described, st.Unbound = b.Described, Unbound(st.Ref, b)
			continue
		}
		if err := os.MkdirAll(st.Dir, 0o755); err != nil {
			return nil, err
		}
		if st.Described, err = restoreState(ctx, g, st.Dir, st.Commit); err != nil {
			return nil, fmt.Errorf("shard %s: %w", st.Name, err)
		}
		if st.Changed, err = ChangedSince(ctx, g, st.Described, head); err != nil {
			return nil, fmt.Errorf("shard %s: %w", st.Name, err)
		}
	}
	slices.SortFunc(states, func(a, b ShardState) int { return strings.Compare(a.Name, b.Name) })
	return states, nil
}

// DropShardStates deletes the shards' state refs on origin once the
// integration has folded them into the branch's state, in one atomic
// push that fails if a shard pushed again meanwhile.
func DropShardStates(ctx context.Context, g Git, states []ShardState) error {
	if len(states) == 0 {
		return nil
	}
	args := []string{"push", "--atomic", "--quiet"}
	for _, s := range states {
		args = append(args, "--force-with-lease="+s.Ref+":"+s.Commit)
	}
	args = append(args, "origin")
	for _, s := range states {
		args = append(args, ":"+s.Ref)
	}
	if _, err := g.Run(ctx, args...); err != nil {
		return fmt.Errorf("delete the integrated shards' states: %w", err)
	}
	return nil
}

// ChangedSince lists the files (relative to the project root, never a
// .ralph file) that differ between commit from and commit to: the work a
// state saved for from has not seen.
func ChangedSince(ctx context.Context, g Git, from, to string) ([]string, error) {
	if from == to {
		return nil, nil
	}
	out, err := g.Run(ctx, "diff", "--relative", "--name-only", "--no-renames", from, to)
	if err != nil {
		return nil, fmt.Errorf("compare the commit the state describes (%.12s) with %.12s: %w", from, to, err)
	}
	var changed []string
	for _, f := range lines(out) {
		if !isRalph("/" + f) {
			changed = append(changed, f)
		}
	}
	return changed, nil
}
