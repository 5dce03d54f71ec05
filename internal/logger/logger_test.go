package logger

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoggerFormatsAndLevels: the format and level flags, RUNNER_DEBUG,
// and a bad flag refused.
func TestLoggerFormatsAndLevels(t *testing.T) {
	type testCase struct {
		name, format, level string
		runnerDebug         bool
		wantDebug           bool
		wantJSON            bool
	}
	run := func(t *testing.T, tc testCase) {
		var buf bytes.Buffer
		log, err := New(&buf, tc.format, tc.level, tc.runnerDebug)
		if err != nil {
			t.Fatal(err)
		}
		log.Debug().Msg("debug line")
		log.Info().Str("spec", "a").Msg("info line")
		out := buf.String()
		if got := strings.Contains(out, "debug line"); got != tc.wantDebug {
			t.Errorf("debug shown = %v, want %v:\n%s", got, tc.wantDebug, out)
		}
		if got := strings.HasPrefix(out, "{"); got != tc.wantJSON {
			t.Errorf("JSON = %v, want %v:\n%s", got, tc.wantJSON, out)
		}
		if !tc.wantJSON && !strings.Contains(out, "spec=a") {
			t.Errorf("console output lacks key=value fields:\n%s", out)
		}
	}
	for _, tc := range []testCase{
		// Not a terminal (a buffer): auto means JSON lines for CI log processors.
		{name: "auto off a terminal is JSON", format: "auto", level: "info", wantJSON: true},
		{name: "console", format: "console", level: "info"},
		{name: "debug level", format: "json", level: "debug", wantDebug: true, wantJSON: true},
		{name: "RUNNER_DEBUG=1 means debug", format: "json", level: "warn", runnerDebug: true, wantDebug: true, wantJSON: true},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
	for _, bad := range [][2]string{{"xml", "info"}, {"json", "loud"}, {"json", ""}} {
		if _, err := New(&bytes.Buffer{}, bad[0], bad[1], false); err == nil {
			t.Errorf("New(%q, %q) accepted", bad[0], bad[1])
		}
	}
}
