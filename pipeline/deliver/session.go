package deliver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/gitstate"
)

// Session delivers one run: it restores the state at the start, commits
// (and in pr mode pushes) after each rotation, and pushes what is left at
// the end. Build it after Prepare.
type Session struct {
	// Git runs in the project root (the folder holding .ralph).
	Git Git
	// StateDir is the project's .ralph folder.
	StateDir string
	Target   Target
	// Push is true in pr mode: the branch and the state ref are pushed;
	// false in commit mode (commits only, the state stays in .ralph).
	Push     bool
	Identity Identity
	// Reports is the folder a rescue bundle is written to.
	Reports string
	// Retries bounds the rebases after a non-fast-forward (default 3).
	Retries int
	// StateRef is the ref the state is pushed to; "" is StateRef(branch).
	// A shard of a matrix has its own (ShardRef), so that shards never
	// clobber each other's state.
	StateRef string
	// SeedRef is read when StateRef holds no state yet: a shard starts
	// from the integrated state of the branch.
	SeedRef string
	// Adopt keeps the state folder as it is (the integration of a matrix
	// wrote it, already reconciled with HEAD): Start restores nothing and
	// binds it to HEAD.
	Adopt bool
	// Binder binds each pushed state commit to the work commit it
	// describes with ralph-ci's own commit status, and Start restores
	// only a state so bound (see IsBound); nil (off GitHub) trusts the
	// state refs.
	Binder Binder
	// Warn receives what the run should know but does not stop it: a
	// state not bound (verified again), a binding that could not be set.
	Warn func(msg string)

	base      string // origin's tip of the branch, as last seen
	described string // the work commit the state on disk describes
	// since is HEAD once the last rotation was delivered (rebased onto
	// commits pushed meanwhile): the agent's own commits are those after it.
	since    string
	stateTip string // the last state commit (origin's)

	checkout  igit.Checkout      // the checkout's git directories, read as data
	gitBefore *gitstate.Snapshot // its state as ralph-ci left it (see InspectGit)

	made  made       // what the last AfterRotation committed (Committed)
	known knownRange // the loop's commits whose files are known (checkRange)

	// packs are the state commits saved in this run (by commit) whose
	// packs a push may still need: those not pushed yet, and the last one
	// pushed, the next one's parent (see dropPacks); chain are the raw
	// commits of those pushed, which every new pack holds again.
	packs map[string]savedState
	chain [][]byte
}

func (s *Session) retries() int {
	if s.Retries > 0 {
		return s.Retries
	}
	return 3
}

// marker records which state commit the local state folder continues, so
// that a run resumed in the same checkout (after a crash) keeps its newer
// local state instead of the older one on origin.
type marker struct {
	Branch string `json:"branch"`
	Ref    string `json:"ref,omitempty"`
	State  string `json:"state"`
}

// stateRef is the ref the session reads and pushes its state at.
func (s *Session) stateRef() string {
	if s.StateRef != "" {
		return s.StateRef
	}
	return StateRef(s.Target.Branch)
}

// BranchStateRef is the state ref the session pushes the loop's state
// to ("" when it pushes none).
func (s *Session) BranchStateRef() string {
	if !s.Push {
		return ""
	}
	return s.stateRef()
}

func (s *Session) markerPath() string { return filepath.Join(s.StateDir, "delivery.json") }

// Start binds the state folder to the checked-out commit before the
// engine loads it. In pr mode the state comes from the branch's state ref
// only (a .ralph/ committed in the checkout is never read as state); when
// it describes another commit than HEAD, the files that differ are
// returned: the caller counts them as changed.
func (s *Session) Start(ctx context.Context) (changed []string, err error) {
	head, err := s.Git.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("delivery: %w", err)
	}
	if err := s.snapGit(); err != nil {
		return nil, err
	}
	if err := s.checkClean(); err != nil {
		return nil, err
	}
	defer func() {
		if err == nil {
			err = s.snapGit() // as the fetches of the state left it
		}
	}()
	s.base, s.described, s.since = head, head, head
	if !s.Push {
		return nil, nil
	}
	remote, err := fetchState(ctx, s.Git, s.stateRef())
	if err != nil {
		return nil, err
	}
	s.stateTip = remote
	if s.Adopt {
		return nil, s.writeMarker()
	}
	if s.continuesLocal(ctx, remote) {
		return nil, nil
	}
	if remote, err = s.trusted(ctx, s.stateRef(), remote); err != nil {
		return nil, err
	}
	if remote == "" && s.SeedRef != "" {
		if remote, err = fetchState(ctx, s.Git, s.SeedRef); err != nil {
			return nil, err
		}
		if remote, err = s.trusted(ctx, s.SeedRef, remote); err != nil {
			return nil, err
		}
	}
	if remote == "" {
		if err := clearState(s.StateDir); err != nil {
			return nil, err
		}
	} else {
		described, err := restoreState(ctx, s.Git, s.StateDir, remote)
		if err != nil {
			return nil, err
		}
		if changed, err = ChangedSince(ctx, s.Git, described, head); err != nil {
			return nil, err
		}
	}
	return changed, s.writeMarker()
}

// trusted is commit, the state commit found at ref, when ralph-ci bound
// it to the work commit it describes (IsBound), else "" (no state), said
// through Warn.
func (s *Session) trusted(ctx context.Context, ref, commit string) (string, error) {
	if commit == "" || s.Binder == nil {
		return commit, nil
	}
	b, ok, err := checkBound(ctx, s.Git, s.Binder, ref, s.Target.Branch, commit)
	if err != nil {
		return "", fmt.Errorf("delivery: %w", err)
	}
	if !ok {
		s.warn(Unbound(ref, b))
		return "", nil
	}
	return commit, nil
}

func (s *Session) warn(msg string) {
	if s.Warn != nil {
		s.Warn(msg)
	}
}

// continuesLocal tells whether the local state folder continues the
// state commit remote on this branch (a run resumed in the same checkout)
// and is not a state committed to the repository.
func (s *Session) continuesLocal(ctx context.Context, remote string) bool {
	raw, err := safefile.ReadUnder(s.StateDir, s.markerPath(), safefile.StatusLimit)
	if err != nil {
		return false
	}
	var m marker
	if json.Unmarshal(raw, &m) != nil || m.Branch != s.Target.Branch || m.State != remote || (m.Ref != "" && m.Ref != s.stateRef()) {
		return false
	}
	tracked, err := s.Git.Run(ctx, "ls-files", "--", filepath.Join(s.StateDir, "state.json"))
	return err == nil && tracked == ""
}

func (s *Session) writeMarker() error {
	raw, _ := json.Marshal(marker{Branch: s.Target.Branch, Ref: s.stateRef(), State: s.stateTip})
	// After every rotation's push only the state's commit id changes:
	// the same length, written over the old (0.9 ms of a 53 ms delivery
	// rotation went to making a new file, perf of bench/delivery.sh).
	if safefile.OverwriteUnder(s.StateDir, s.markerPath(), raw) {
		return nil
	}
	write := func(w io.Writer) error { _, err := w.Write(raw); return err }
	if err := safefile.ReplaceUnder(s.StateDir, s.markerPath(), 0o644, write); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delivery: %w", err)
	}
	return nil
}

// Tree stages the work tree as Commit does and returns its tree id: the
// tree a verification method is about to judge, which AfterRotation then
// commits by id (Rotation.Tree). changed are the rotation's changed
// paths: when one is a .gitignore (or the tree holds a .gitignore git
// ignores, which they never show), the files the new rules ignore but the
// rules of the commit the rotation started from did not are staged too
// (stageNewlyIgnored), and Warn names them.
func (s *Session) Tree(ctx context.Context, changed []string) (string, error) {
	if err := stage(ctx, s.Git, Rotation{}); err != nil {
		return "", fmt.Errorf("stage the work to verify: %w", err)
	}
	touched := touchesIgnore(changed)
	if !touched {
		var err error
		if touched, err = hiddenIgnoreFile(ctx, s.Git); err != nil {
			return "", fmt.Errorf("look for a .gitignore git ignores: %w", err)
		}
	}
	if touched {
		added, err := stageNewlyIgnored(ctx, s.Git, s.since)
		if err != nil {
			return "", fmt.Errorf("stage the files the rotation's new ignore rules hide: %w", err)
		}
		if len(added) > 0 && s.Warn != nil {
			s.Warn(fmt.Sprintf("committed though ignored: %s (a rule this rotation added to a .gitignore ignores them, and the verification could read them; ignore rules take effect from the next rotation)", strings.Join(added, ", ")))
		}
	}
	tree, err := s.Git.Run(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("record the tree to verify: %w", err)
	}
	return tree, nil
}

// AfterRotation commits the rotation's work, then in pr mode pushes it
// with the state saved for it. Call it after the state is saved. It
// returns the files that commits pushed meanwhile by others changed.
func (s *Session) AfterRotation(ctx context.Context, r Rotation) ([]string, error) {
	g := s.Git
	s.made = made{}
	if r.Clean && r.Head != "" && r.Head == s.since {
		return s.deliverOnly(ctx, r)
	}
	marked, err := markAgentCommits(ctx, g, s.Identity, s.since, r)
	if err != nil {
		return nil, err
	}
	head, changes, err := commitWork(ctx, g, s.Identity, r)
	if err != nil {
		var wf *WorkflowError
		if errors.As(err, &wf) {
			return nil, s.rescue(ctx, err)
		}
		return nil, err
	}
	if head == "" && marked == 0 && r.Head != "" {
		head = r.Head // nothing committed, by anyone
	} else if head == "" {
		if head, err = g.head(); err != nil {
			return nil, err
		}
	}
	s.made = made{head: head, changes: changes, ok: true}
	if marked == 0 && s.since == s.base {
		// base..head is this one commit: push checks its files, no git.
		s.known = knownRange{base: s.base, head: head, files: paths(changes)}
	}
	s.described, s.since = head, head
	if !s.Push {
		return nil, s.snapGit()
	}
	foreign, err := s.sync(ctx, fmt.Sprintf("ralph-ci state after %s iteration %d\n", r.Spec, r.Iteration))
	if tip, terr := g.head(); terr == nil {
		s.since = tip // a rebase moved the loop's commits onto the others'
		s.made.ok = s.made.ok && tip == head
	}
	if err == nil {
		err = s.snapGit() // as ralph-ci's commit, fetch and push left it
	}
	return foreign, err
}

// deliverOnly is AfterRotation when the rotation left nothing to commit:
// in pr mode the state saved for it is pushed.
func (s *Session) deliverOnly(ctx context.Context, r Rotation) ([]string, error) {
	s.made = made{head: s.since, ok: true}
	if s.since == s.base {
		s.known = knownRange{base: s.base, head: s.since}
	}
	if !s.Push {
		return nil, nil
	}
	foreign, err := s.sync(ctx, fmt.Sprintf("ralph-ci state after %s iteration %d\n", r.Spec, r.Iteration))
	if tip, terr := s.Git.head(); terr == nil {
		s.made.ok = s.made.ok && tip == s.since
		s.since = tip
	}
	if err == nil {
		err = s.snapGit()
	}
	return foreign, err
}

// made is what the last AfterRotation left: HEAD and the changes its
// commit made (none when nothing changed), when ok.
type made struct {
	head    string
	changes []Change
	ok      bool
}

// knownRange is a range of commits whose files are known: base..head
// holds only ralph-ci's commit of files.
type knownRange struct {
	base, head string
	files      []string
}

// Committed tells what the last AfterRotation's commit left: HEAD and
// every path it committed, with its mode and content id ("" when
// deleted); ok is false when it cannot tell (no rotation delivered yet, a
// rebase onto others' commits, a failure), and the caller then looks at
// the work tree itself.
func (s *Session) Committed() (head string, changes []Change, ok bool) {
	return s.made.head, s.made.changes, s.made.ok
}

// Finish pushes the state saved at the end of the run (and any commit not
// pushed yet); a fork's pull request's work goes to the base repository's
// branch of its own (Target.Fork).
func (s *Session) Finish(ctx context.Context) error {
	if !s.Push {
		return nil
	}
	_, err := s.sync(ctx, "ralph-ci state at the end of the run\n")
	if store, serr := igit.OpenStore(s.Git.Dir); serr == nil {
		_ = store.DropSpares() // the files of packs dropped, kept for the next rotation's (igit.Store)
	}
	return err
}

// sync pushes HEAD and a state commit describing s.described.
func (s *Session) sync(ctx context.Context, msg string) ([]string, error) {
	foreign, err := s.push(ctx, func() (string, error) {
		commit, raw, pack, err := saveState(s.Git, s.StateDir, s.described, s.stateTip, msg, s.chain)
		if err == nil {
			if s.packs == nil {
				s.packs = map[string]savedState{}
			}
			s.packs[commit] = savedState{pack: pack, raw: raw}
		}
		return commit, err
	})
	if err != nil {
		return foreign, err
	}
	return foreign, s.writeMarker()
}

// savedState is a state commit saved in this run: its raw commit and the
// pack holding it with its tree.
type savedState struct {
	pack string
	raw  []byte
}

// dropPacks removes the packs of the state commits saved in this run but
// the one of pushed, just pushed, which the next state commit names as
// its parent (the others are on origin, or were never pushed: a push
// refused and tried again): one pack per rotation would otherwise pile up
// in the checkout's object store, and a git process looking for an
// object opens the index of each. The commits of those pushed stay, in
// every new pack (chain): git push walks the state's history to tell a
// fast-forward.
func (s *Session) dropPacks(pushed string) {
	if saved, ok := s.packs[pushed]; ok {
		s.chain = append(s.chain, saved.raw)
	}
	if len(s.packs) <= 1 {
		return
	}
	store, err := igit.OpenStore(s.Git.Dir)
	if err != nil {
		return // the packs stay: git reads them all the same
	}
	for commit, saved := range s.packs {
		if commit != pushed && store.RemovePack(saved.pack) == nil {
			delete(s.packs, commit)
		}
	}
}

// Branch is the branch the loop works on.
func (s *Session) Branch() string { return s.Target.Branch }

// Head is the last commit pushed (or the start commit).
func (s *Session) Head() string { return s.base }
