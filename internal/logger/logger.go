// Package logger builds ralph-ci's log of one invocation (zerolog on
// stderr) from its --log-format and --log-level flags: human console
// lines on a terminal, JSON lines otherwise (CI log processors read
// those), debug on a re-run with debug logging (RUNNER_DEBUG=1).
package logger

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"
)

// New builds the logger of one invocation on w: format is auto (console
// on a terminal, else JSON lines), console or json; level is debug, info,
// warn or error, and runnerDebug makes it debug. A bad flag is an error
// naming it.
func New(w io.Writer, format, level string, runnerDebug bool) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Logger{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	if runnerDebug {
		lvl = zerolog.DebugLevel
	}
	switch format {
	case "auto":
		if IsTerminal(w) {
			format = "console"
		} else {
			format = "json"
		}
	case "console", "json":
	default:
		return zerolog.Logger{}, fmt.Errorf("--log-format %q: want auto, console or json", format)
	}
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly, NoColor: !IsTerminal(w)}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
}

// IsTerminal tells whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
