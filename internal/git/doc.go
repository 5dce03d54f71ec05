// Package git is the doorway through which every git process ralph-ci
// starts goes: change detection, the trusted baseline, commits, delivery,
// state and shard refs. It owns the environment and the configuration git
// sees; no other package starts git (internal/layering checks it).
//
// The agent runs as the same user as ralph-ci and can write anything in
// the work tree, .git/ included: assume it did. Git has dozens of ways to
// run a program or read another file named by its configuration, and new
// ones come with new releases, so a list of -c overrides would always
// miss one. The property holds by construction instead:
//
//   - ralph-ci's git never reads the checkout's configuration: it runs
//     with GIT_DIR on a git directory of ralph-ci's own, outside the work
//     tree, whose config ralph-ci wrote (no hooks, no fsmonitor, no
//     filter, textconv, diff or merge driver defined, no signing, only
//     origin's transport allowed, origin's URL as the checkout had it when
//     ralph-ci started); the directory is one per run (a fresh name, mode
//     0700, removed by [Cleanup]). Before the first command after an
//     agent or a verification command ([Untrusted]; before every command
//     where one may outlive its end) it is swept back to what ralph-ci
//     and its git left there: whatever else appeared (a MERGE_HEAD, a
//     sequencer, rr-cache, remotes/, a ref; see [ReadByGit]) is removed,
//     what changed (the config) is written back, and what would make git
//     read another directory (commondir, config.worktree, info/grafts,
//     replace refs) is gone;
//   - the checkout's .git is data: git works on its index
//     (GIT_INDEX_FILE), object store (GIT_OBJECT_DIRECTORY) and work tree
//     (GIT_WORK_TREE); its HEAD and branch are read as files before each
//     command and written back after ralph-ci's own (commits, checkouts,
//     fetches), with the shallow list, so that the next agent sees a
//     consistent repository; an objects/info/alternates that changed
//     since the start stops the command;
//   - the environment is built, not inherited: no GIT_* variable of the
//     job's, no system or global configuration, replace objects off, no
//     prompt, editor or pager, PATH limited to git's own folder and the
//     system's, git itself the binary found at the first use;
//   - the job's credential reaches only fetch and push of origin
//     ([UseCredentials]), through that one process's environment; the
//     one other URL git may name is a fork's, for push alone, with its
//     own credential ([UsePushURL]);
//   - what ralph-ci trusts in the object store it reads through [Objects],
//     which checks every object against its id, and parses trailers
//     itself ([Trailers]).
//
// ralph-ci's git runs between rotations, when the shepherd has stopped
// every process the agent and the verification commands started: nothing
// of theirs is alive to read a git process's environment or to change the
// git directory under it; what they left there is rewritten before the
// next command, the first after them. Where the kernel has Landlock, the shepherd also denies
// them writing ralph-ci's folder ([PrivateBase]): it is never among what
// they may change (pipeline/agent.Writes, internal/shepherd).
package git
