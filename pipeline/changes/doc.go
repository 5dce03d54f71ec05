// Package changes tells whether an agent rotation changed any tracked file.
//
// ralph-ci runs a coding agent in a loop of rotations and, after each one,
// must know whether the agent changed anything. The answer is content-level:
// a rotation changed files when at least one tracked file has different
// content after the rotation than before it.
//
// # Tracked files
//
// Inside a git repository the tracked files are the files git tracks plus the
// untracked files git does not ignore. The .ralph folder under the root
// (ralph-ci's own state) never counts: its entries are dropped from what git
// reports, and git itself spends almost nothing on it (nothing when it is
// ignored, one collapsed entry when it is untracked).
//
// The root may be a subdirectory of a work tree: only the files under it count,
// and paths are relative to it. A root that git ignores (a folder another
// repository ignores) is treated as outside git.
//
// Outside a git repository the whole tree under the root counts, except the
// .ralph folder, every .git folder or file, and what a .ralphignore file at the
// root excludes. .ralphignore uses gitignore syntax: comments, blank lines,
// negation with "!", directory-only patterns ending in "/", patterns anchored
// by a "/" at the start or in the middle, and "*", "?", "[...]" and "**". As in
// git, a file inside an excluded directory cannot be re-included.
//
// # What counts as a change
//
//   - A file whose content differs: modified, created (untracked and not
//     ignored), or deleted. A rename is a deletion plus a creation.
//   - A file modified in one rotation and again in the next changed in both.
//   - A file touched or rewritten with identical content, or edited and
//     reverted within the rotation, did not change.
//   - Ignored files never count. Only the .gitignore files of the tree
//     decide what is ignored: a file ignored by .git/info/exclude alone
//     counts as untracked, and a tracked file marked assume-unchanged or
//     skip-worktree (git update-index) is hashed every time (see hidden.go).
//   - Work the agent committed counts when the committed content differs from
//     the content before the rotation: a new commit, an amend, a reset to an
//     older commit. Committing content that was already dirty before the
//     rotation is no change, since the content is the same.
//   - Only content counts, as git hashes it: a mode-only change (chmod +x) is
//     no change, and a symbolic link's content is its target string.
//   - A submodule (or an untracked nested repository) is one path whose content
//     is its checked-out commit, plus a digest of its own dirty files when it
//     has local modifications. Git never runs inside it (its configuration is
//     the agent's): git status runs with --ignore-submodules=dirty, and Take
//     describes every submodule of the index (from the ls-files it runs
//     anyway) by a Take of its own, through the doorway.
//
// # How it stays cheap
//
// A Snapshot in git mode holds the HEAD commit id and the git object ids of the
// paths that may differ from HEAD: the ones git status --porcelain=v2 reports.
// Clean files are not hashed; their content is, by definition, their blob in
// the HEAD commit, and a path whose worktree matches the index takes its id
// from the index. Take runs one git status per rotation (and one git ls-files
// for the index flags, see hidden.go), in the
// untracked-files mode the repository is configured for (normal, or all when
// status.showUntrackedFiles says so) so that it shares git's untracked cache,
// and, at the top of the work tree, with no pathspec, which would turn that
// cache off (below the top, a pathspec limits the scan to the root). Only when status collapses new untracked directories into one entry does a
// single git ls-files call list the files inside them. (The first Take of a
// root also runs two or three small git commands to learn about the
// repository.)
//
// Changed compares two snapshots path by path: a path listed in a snapshot has
// the content recorded there, any other path has its blob at that snapshot's
// HEAD. With HEAD unchanged it runs no git at all, or one git ls-tree call for
// all the listed paths that became clean. When HEAD moved, one git diff-tree call names
// the paths that differ between the two commits along with both blob ids, and
// at most one git ls-tree call fetches the blob ids of the remaining listed
// paths. Worktree files are hashed in Go the way git hashes a blob (sha1 or
// sha256 of "blob <size>\x00" followed by the content), so the ids compare
// directly with the ids git reports.
//
// Outside git, a Snapshot maps every counted file to its blob id, and Changed
// compares the two maps.
//
// The snapshot taken after one rotation is meant to be reused as the
// snapshot before the next, and a Snapshot marshals to small JSON, so a
// caller can persist it before starting the agent and compare against that
// baseline again after a crash.
//
// # Skipping unchanged rotations
//
// A Watcher (NewWatcher) takes the same snapshots as Take, but on Linux it
// watches the root with inotify and, when no relevant event arrived since its
// previous snapshot, returns that snapshot again without running git. It
// watches every directory of the work tree except .ralph, including ignored
// ones (an event there costs one real Take, which then finds no change), and
// in a repository the .git directory itself (HEAD, index, packed-refs,
// config), .git/info, .git/reftable and everything under .git/refs, so that
// commits, resets, checkouts and branch moves are seen; the .git directories
// of untracked nested repositories likewise. Outside git it also watches the
// directories above the root for a new .git, which would turn the root into
// part of a repository. Git itself writes nothing there while Take runs,
// since its optional locks are off.
//
// Events are ordered by a barrier: at each Take the Watcher renames a file
// of its own in a barrier directory it watches through the same inotify
// instance (ralph-ci's .ralph/watch) and waits for that event; inotify queues
// an event within the system call that causes it, in order, so every earlier
// change has then been handled. The wait is bounded (two seconds), and on any
// doubt the Watcher takes a real snapshot: a lost barrier, an event queue
// overflow, an error from inotify, a moved directory (its watches would
// report stale paths), a .git appearing or vanishing, or the root or barrier
// directory replaced all start the watches anew.
//
// The fast path is off for good (every Take is real; see Watcher.FastPath)
// on other systems (kqueue needs a descriptor per file), when configured off
// (WithFastPath), past DefaultMaxWatchedDirs directories, when the system
// refuses a watch (fs.inotify.max_user_watches), and for layouts whose
// changes are not all under the root: a root below the top of its work tree,
// or a .git file (a linked worktree, or a submodule anywhere in the tree).
// GIT_DIR and the like in ralph-ci's environment leave it on: the git that
// takes snapshots never reads them.
//
// A regular file with more than one name (a hard link) in the tree when the
// watcher starts, or created in it as another name of a file elsewhere,
// turns the fast path off: a write through a name outside the watched
// directories makes no event here.
//
// No event, and so no new snapshot, comes from a write through a shared
// memory mapping (mmap), from a change made by another machine to a network
// or cluster file system (NFS, SMB, FUSE file systems whose changes come
// from elsewhere), from a write through a hard link made during the run
// from a file of the tree to a name outside it (link(2) makes no event in
// the file's directory), or from a change to git's configuration or
// excludes outside the repository (the global core.excludesFile or
// ~/.gitconfig). Where agents work like that, turn the fast path off.
//
// A caller that changed the repository itself, knowing what Take would see
// (ralph-ci's commit of a rotation's work: Snapshot.AfterCommit), hands the
// Watcher that snapshot (Watcher.Adopt), so that the next rotation's
// baseline runs no git. A Subtree follows one folder through the same
// events: ralph-ci lists its spec folders again only when something
// happened under them other than an attribute's change alone (a chmod,
// a chown, a time set), which changes no name and no content there.
//
// # Limits
//
// Files under a git clean filter (such as text=auto line-ending conversion or
// Git LFS) may be reported as changed when dirty content is committed
// unchanged, because the worktree bytes and the committed blob then hash
// differently. Files marked assume-unchanged or skip-worktree are taken to
// match HEAD, as git status does. A git snapshot refers to its HEAD commit, so
// comparing against it fails once that commit was pruned from the repository.
// Git runs with GIT_OPTIONAL_LOCKS=0, so Take never writes the index: files
// touched without a content change are re-read by each git status until some
// other git command refreshes the index.
package changes
