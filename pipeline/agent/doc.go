// Package agent runs one AI coding agent CLI (Claude Code, Codex, Gemini CLI
// or any command) non-interactively and reads what it said.
//
// # Running
//
// [Run] starts the agent's argv (no shell) in a working directory, with the
// environment [Environ] builds (never the job's credentials and files)
// plus the caller's variables (later entries win),
// writes the prompt to its stdin and closes it. Stdout and stderr share one
// pipe, so they reach [Invocation.Output] (the history log) interleaved in
// the order the agent wrote them, as they arrive. Nothing is held whole in
// memory: a gigabyte on one line costs the same few hundred KiB as a short
// answer, because every scanner below keeps only bounded state.
//
// Secrets (see [Host.AddSecrets]) are masked in the output before anything
// reads it. When [UseShepherd] named ralph-ci's executable (Linux), the
// agent runs under a shepherd that contains everything it starts, setsid'd
// processes included, and stops them when the agent ends, on a timeout and
// when ralph-ci dies (see internal/shepherd).
//
// The agent runs in its own process group (unix). When the timeout passes or
// the caller's context is cancelled, the whole group gets SIGTERM, then
// SIGKILL after [Invocation.Grace]. The same happens when the agent itself
// exits but left processes behind (a background server, a grandchild still
// holding the output pipe): Run never waits on pipes held by strays, and no
// process of the group survives it. On Linux the calling process becomes a
// child subreaper (PR_SET_CHILD_SUBREAPER) the first time Run is called, so
// orphaned agent processes are re-parented to it and reaped by Run even when
// PID 1 does not reap zombies (a container whose init is ralph-ci itself).
//
// # Reading
//
// A [Format] turns the raw output into the agent's final text: "text" takes
// the output as it is; the others, one file each (format_claude.go, …),
// parse the JSON a CLI prints with its JSON output flag (see [NewFormat])
// and also report what it says of cost, turns, tokens and errors ([Usage]). JSON documents are parsed one at
// a time, each at most [MaxJSONBytes]; larger ones are logged but skipped.
//
// The final text is then scanned for:
//
//   - the status: the final line (the last non-empty one, a lone promise tag
//     aside) when it is RALPH_STATUS: DONE|CONTINUE|ROTATE|STUCK or
//     TASK_COMPLETE, in any case, and not quoted, indented or fenced (see
//     [ParseStatusLine] for the exact grammar); any other final line means
//     no status;
//   - the promise: the first <promise>TEXT</promise>, tags case-insensitive
//     (the claim layers then read the one that closes the final message,
//     see layers.ClosingPromise),
//     TEXT trimmed and possibly spanning lines, at most [MaxPromiseBytes];
//   - the watched phrases ([Invocation.Watch]), case-insensitive (ASCII);
//   - its last [TailBytes], for judges and reports.
//
// Rate-limit and quota messages of the three CLIs are looked for in the
// lines that are not the agent's own prose (see [Report.RateLimited]); when
// the message says when the limit resets, [Report.ResetAt] tells.
//
// Reading costs about what writing the log does: no scanner walks the
// output line by line. Each searches a chunk for the few bytes that can
// matter to it (a secret's, a phrase's or a rate-limit keyword's rarest
// byte, a fence's backquotes) with vectorized byte searches, and reads only
// the lines around them and the chunk's last line; nothing is allocated
// or lower-cased per line, and a chunk without a secret is not copied
// (BenchmarkScanChunk, and the output section of bench/scale.sh).
//
// # Status
//
// [status.Status] (package pipeline/status) is ralph-ci's one status vocabulary, spelled as state.json
// stores it: what the agent reported (DONE, CONTINUE, ROTATE, STUCK, or
// NONE for nothing), REJECTED for a claim ralph-ci's layers rejected, and
// "" before the first rotation. [ParseStatusLine] reads the output's
// status line and [ParseStatusFile] the word in .ralph/status; both go
// through one word reader, the only place that knows TASK_COMPLETE.
//
// # Configured agents
//
// [Configured] is the one doorway that starts an agent of the config (the
// rotation's, the artifact reviewer, a semantic judge): its command,
// format, timeout and env, after the caller's RALPH_* variables.
// [Result.Failure] classes how a run ended, the same for every caller, and
// [Start.Failed] turns that into an error naming the agent. [Environ] is
// the one function that builds the environment of a started process.
//
// [Scanner] does all the reading without a process, so it can be fed from a
// saved log, fuzzed, or fed in chunks of any size: the result does not
// depend on how the output was split.
package agent
