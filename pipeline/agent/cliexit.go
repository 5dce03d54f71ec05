package agent

import "fmt"

// geminiFatal names Gemini CLI's fatal exit codes (the FatalError classes
// of gemini-cli 0.61.0, packages/core/src/utils/errors.ts).
var geminiFatal = map[int]string{
	41: "FatalAuthenticationError",
	42: "FatalInputError",
	44: "FatalSandboxError",
	52: "FatalConfigError",
	53: "FatalTurnLimitedError",
	54: "FatalToolExecutionError",
	55: "FatalUntrustedWorkspaceError",
}

// classifyExit reads what a CLI's exit code says beyond "non-zero". For
// Gemini CLI: 53 (the session's turn limit) and 54 (a tool failed fatally)
// end a rotation short, as Claude's error_max_turns does; the others (41
// authentication, 42 input, 44 sandbox, 52 config, 55 untrusted
// workspace) mean it cannot work at all: a start-up failure.
func classifyExit(format string, r *Result) {
	name, ok := geminiFatal[r.ExitCode]
	if format != "gemini" || r.Signal != "" || !ok {
		return
	}
	msg := fmt.Sprintf("gemini exited %d (%s)", r.ExitCode, name)
	if r.Usage.ErrorMessage != "" {
		msg += ": " + r.Usage.ErrorMessage
	}
	switch r.ExitCode {
	case 53, 54:
		r.Usage.IsError, r.Usage.Subtype, r.Usage.ErrorMessage = true, name, clip(msg, maxMessage)
	default:
		if r.StartupFailure == "" {
			r.StartupFailure = clip(msg, maxMessage)
		}
	}
}
