// Package layering pins the package graph of ralph-ci: its test fails when
// a package imports one above it. The order, top to bottom (a package may
// import its own layer and the ones below it, never one above):
//
//	cmd/ralph-ci                      wiring: flags and environment into options,
//	                                  one call per command, the process exit code
//	pipeline/run, check               a command's sequence: run's (guards, delivery,
//	                                  engine, reports, exit code, gate status), check's
//	pipeline/matrix, job              what the commands share: the CI matrix (plan,
//	                                  shards, integration), the job (environment,
//	                                  project loading, checkpoint channel, gate status)
//	pipeline/engine                   the loop: orchestration and I/O
//	reporters/*, github/*             outputs; github/prchannel, the PR checkpoint channel,
//	                                  github/pulls, ralph-ci's own pull request
//	pipeline/gate                     checkpoint sync, merge gate, who may approve
//	pipeline/state, project, shards   state.json, the loaded project, the shards
//	pipeline/layers, tiers, verify, plan, scheduler   pure rules over plain values
//	leaves                            agent, changes, counter, deliver, discovery,
//	                                  prompt, exitcode, schema, internal/*, and github:
//	                                  the one port to the GitHub API
//	leaf types                        pipeline/status, pipeline/report, pipeline/usage:
//	                                  the types every layer shares; they import
//	                                  nothing of the module
//
// Some imports the order allows are forbidden all the same (never, in
// layering_test.go): the reporters import no pipeline/gate, the state
// neither pipeline/agent nor pipeline/spend.
//
// A second rule: no package but internal/git (the git doorway) starts
// git; test helpers that build fixtures are listed with their reason
// (gitdoor_test.go).
//
// A new package gets its place in the table of layering_test.go; until it
// has one the test names it.
package layering
