// Package git is the doorway through which every git process ralph-ci
// starts goes: change detection, the trusted baseline, commits, delivery,
// state and shard refs. It owns the environment and the configuration git
// sees; no other package starts git (internal/layering checks it).
//
// The agent runs as the same user as ralph-ci and can write anything in
// the work tree, .git/ included, and anything else the user can: assume it
// did. So:
//
//   - git is the binary found on the PATH at the first use, before any
//     agent ran, by its absolute path;
//   - its environment is built here, not inherited: no GIT_* variable of
//     the job's, no system or global configuration (GIT_CONFIG_NOSYSTEM,
//     GIT_CONFIG_GLOBAL=/dev/null), no replace objects
//     (GIT_NO_REPLACE_OBJECTS), no terminal prompt, no editor, no pager,
//     PATH limited to git's own folder and the system's;
//   - no hook runs (core.hooksPath is an empty folder of ralph-ci's own),
//     no fsmonitor;
//   - the job's credential reaches only fetch and push ([UseCredentials]),
//     through that one process's environment.
package git
