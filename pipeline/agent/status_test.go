package agent

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

func TestParseStatusLine(t *testing.T) {
	tests := []struct {
		line string
		want status.Status
		task bool
		ok   bool
	}{
		{"RALPH_STATUS: DONE", status.Done, false, true},
		{"RALPH_STATUS:CONTINUE", status.Continue, false, true},
		{"  RALPH_STATUS:   ROTATE  \r", status.Rotate, false, true},
		{" RALPH_STATUS: STUCK", status.Stuck, false, true},
		{"**RALPH_STATUS: DONE**", status.Done, false, true},
		{"**RALPH_STATUS:** DONE", status.Done, false, true},
		{"**RALPH_STATUS**: DONE", status.Done, false, true},
		{"`RALPH_STATUS: DONE`", status.Done, false, true},
		{"- RALPH_STATUS: DONE.", status.Done, false, true},
		{"### RALPH_STATUS: DONE", status.Done, false, true},
		{"\x1b[1;32mRALPH_STATUS: DONE\x1b[0m", status.Done, false, true},
		{"TASK_COMPLETE", status.Done, true, true},
		{"  TASK_COMPLETE  ", status.Done, true, true},
		{"**TASK_COMPLETE**", status.Done, true, true},
		// Malformed or not a status line.
		{"", status.None, false, false},
		{"RALPH_STATUS: done", status.Done, false, true},
		{"ralph_status: Continue", status.Continue, false, true},
		{"task_complete", status.Done, true, true},
		// Quoted or indented: a citation, not a claim.
		{"> RALPH_STATUS: DONE", status.None, false, false},
		{"  > RALPH_STATUS: DONE", status.None, false, false},
		{"\tRALPH_STATUS: STUCK", status.None, false, false},
		{"    RALPH_STATUS: DONE", status.None, false, false},
		{"RALPH_STATUS: DONE, mostly", status.None, false, false},
		{"RALPH_STATUS: FINISHED", status.None, false, false},
		{"RALPH_STATUS DONE", status.None, false, false},
		{"RALPH_STATUS:", status.None, false, false},
		{"Set RALPH_STATUS: DONE when finished", status.None, false, false},
		{"TASK_COMPLETE!", status.None, false, false},
		{"TASK_COMPLETED", status.None, false, false},
		{"the TASK_COMPLETE marker", status.None, false, false},
	}
	for _, tt := range tests {
		st, task, ok := ParseStatusLine(tt.line)
		if st != tt.want || task != tt.task || ok != tt.ok {
			t.Errorf("ParseStatusLine(%q) = %q, %v, %v; want %q, %v, %v", tt.line, st, task, ok, tt.want, tt.task, tt.ok)
		}
	}
}

func TestStatusInText(t *testing.T) {
	tests := []struct {
		name, text string
		want       status.Status
		task       bool
	}{
		{"last wins", "RALPH_STATUS: CONTINUE\nwork\nRALPH_STATUS: DONE\n\n", status.Done, false},
		{"a line after the status takes the claim back", "RALPH_STATUS: DONE\nCorrection: not complete yet\n", status.None, false},
		{"a promise line may follow", "RALPH_STATUS: DONE\n<promise>COMPLETE</promise>\n", status.Done, false},
		{"fenced status is no claim", "```\nRALPH_STATUS: DONE\n```\n", status.None, false},
		{"fence left open", "```\nRALPH_STATUS: DONE\n", status.None, false},
		{"after a closed fence", "```\nlog\n```\nRALPH_STATUS: ROTATE\n", status.Rotate, false},
		{"quoted last line", "see the log:\n> RALPH_STATUS: DONE\n", status.None, false},
		{"lower case", "ok\nralph_status: done\n", status.Done, false},
		{"last wins over TASK_COMPLETE", "TASK_COMPLETE\nRALPH_STATUS: STUCK\n", status.Stuck, false},
		{"TASK_COMPLETE last", "RALPH_STATUS: CONTINUE\nTASK_COMPLETE\n", status.Done, true},
		{"none", "all done, I think\n", status.None, false},
		{"a malformed last line is no claim", "RALPH_STATUS: ROTATE\nRALPH_STATUS: maybe\n", status.None, false},
		{"no final newline", "x\nRALPH_STATUS: DONE", status.Done, false},
		{"CRLF", "x\r\nRALPH_STATUS: CONTINUE\r\n", status.Continue, false},
		{"empty", "", status.None, false},
		{"overlong line is not a status", "RALPH_STATUS: DONE" + strings.Repeat(" ", maxStatusLine) + "\n", status.None, false},
		{"status after overlong line", strings.Repeat("x", 3*maxStatusLine) + "\nRALPH_STATUS: STUCK\n", status.Stuck, false},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{0, 1, 2} {
			r := scanChunks(t, "text", []byte(tt.text), seed)
			if r.Status != tt.want || r.TaskComplete != tt.task {
				t.Errorf("%s (seed %d): status %q, task %v; want %q, %v", tt.name, seed, r.Status, r.TaskComplete, tt.want, tt.task)
			}
		}
	}
}

func TestStripANSI(t *testing.T) {
	in := "\x1b[32mgreen\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x1b\\ \x1b(Bdone\x1b["
	if got, want := stripANSI(in), "green link done"; got != want {
		t.Errorf("stripANSI = %q, want %q", got, want)
	}
}

// The word in .ralph/status: the four statuses and TASK_COMPLETE, any case,
// surrounded by whitespace; anything else is no status.
func TestParseStatusFile(t *testing.T) {
	for content, want := range map[string]status.Status{
		"DONE\n": status.Done, " continue ": status.Continue, "Rotate": status.Rotate, "STUCK\r\n": status.Stuck,
		"task_complete\n": status.Done, "": status.None, "NONE": status.None, "REJECTED": status.None,
		"DONE!": status.None, "RALPH_STATUS: DONE": status.None,
	} {
		got, ok := ParseStatusFile([]byte(content))
		if got != want || ok != (want != status.None) {
			t.Errorf("ParseStatusFile(%q) = %q, %v; want %q", content, got, ok, want)
		}
	}
}

// Only DONE and its alias TASK_COMPLETE count as DONE, exactly spelled.
func TestStatusDone(t *testing.T) {
	for s, want := range map[status.Status]bool{
		status.Done: true, "TASK_COMPLETE": true,
		status.Never: false, status.None: false, status.Continue: false, status.Rotate: false,
		status.Stuck: false, status.Rejected: false, "done": false, " DONE": false,
	} {
		if got := s.Done(); got != want {
			t.Errorf("Status(%q).Done() = %v, want %v", s, got, want)
		}
	}
}
