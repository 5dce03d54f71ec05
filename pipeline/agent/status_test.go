package agent

import (
	"strings"
	"testing"
)

func TestParseStatusLine(t *testing.T) {
	tests := []struct {
		line string
		want Status
		task bool
		ok   bool
	}{
		{"RALPH_STATUS: DONE", StatusDone, false, true},
		{"RALPH_STATUS:CONTINUE", StatusContinue, false, true},
		{"  RALPH_STATUS:   ROTATE  \r", StatusRotate, false, true},
		{" RALPH_STATUS: STUCK", StatusStuck, false, true},
		{"**RALPH_STATUS: DONE**", StatusDone, false, true},
		{"**RALPH_STATUS:** DONE", StatusDone, false, true},
		{"**RALPH_STATUS**: DONE", StatusDone, false, true},
		{"`RALPH_STATUS: DONE`", StatusDone, false, true},
		{"- RALPH_STATUS: DONE.", StatusDone, false, true},
		{"### RALPH_STATUS: DONE", StatusDone, false, true},
		{"\x1b[1;32mRALPH_STATUS: DONE\x1b[0m", StatusDone, false, true},
		{"TASK_COMPLETE", StatusDone, true, true},
		{"  TASK_COMPLETE  ", StatusDone, true, true},
		{"**TASK_COMPLETE**", StatusDone, true, true},
		// Malformed or not a status line.
		{"", StatusNone, false, false},
		{"RALPH_STATUS: done", StatusDone, false, true},
		{"ralph_status: Continue", StatusContinue, false, true},
		{"task_complete", StatusDone, true, true},
		// Quoted or indented: a citation, not a claim.
		{"> RALPH_STATUS: DONE", StatusNone, false, false},
		{"  > RALPH_STATUS: DONE", StatusNone, false, false},
		{"\tRALPH_STATUS: STUCK", StatusNone, false, false},
		{"    RALPH_STATUS: DONE", StatusNone, false, false},
		{"RALPH_STATUS: DONE, mostly", StatusNone, false, false},
		{"RALPH_STATUS: FINISHED", StatusNone, false, false},
		{"RALPH_STATUS DONE", StatusNone, false, false},
		{"RALPH_STATUS:", StatusNone, false, false},
		{"Set RALPH_STATUS: DONE when finished", StatusNone, false, false},
		{"TASK_COMPLETE!", StatusNone, false, false},
		{"TASK_COMPLETED", StatusNone, false, false},
		{"the TASK_COMPLETE marker", StatusNone, false, false},
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
		want       Status
		task       bool
	}{
		{"last wins", "RALPH_STATUS: CONTINUE\nwork\nRALPH_STATUS: DONE\n\n", StatusDone, false},
		{"a line after the status takes the claim back", "RALPH_STATUS: DONE\nCorrection: not complete yet\n", StatusNone, false},
		{"a promise line may follow", "RALPH_STATUS: DONE\n<promise>COMPLETE</promise>\n", StatusDone, false},
		{"fenced status is no claim", "```\nRALPH_STATUS: DONE\n```\n", StatusNone, false},
		{"fence left open", "```\nRALPH_STATUS: DONE\n", StatusNone, false},
		{"after a closed fence", "```\nlog\n```\nRALPH_STATUS: ROTATE\n", StatusRotate, false},
		{"quoted last line", "see the log:\n> RALPH_STATUS: DONE\n", StatusNone, false},
		{"lower case", "ok\nralph_status: done\n", StatusDone, false},
		{"last wins over TASK_COMPLETE", "TASK_COMPLETE\nRALPH_STATUS: STUCK\n", StatusStuck, false},
		{"TASK_COMPLETE last", "RALPH_STATUS: CONTINUE\nTASK_COMPLETE\n", StatusDone, true},
		{"none", "all done, I think\n", StatusNone, false},
		{"a malformed last line is no claim", "RALPH_STATUS: ROTATE\nRALPH_STATUS: maybe\n", StatusNone, false},
		{"no final newline", "x\nRALPH_STATUS: DONE", StatusDone, false},
		{"CRLF", "x\r\nRALPH_STATUS: CONTINUE\r\n", StatusContinue, false},
		{"empty", "", StatusNone, false},
		{"overlong line is not a status", "RALPH_STATUS: DONE" + strings.Repeat(" ", maxStatusLine) + "\n", StatusNone, false},
		{"status after overlong line", strings.Repeat("x", 3*maxStatusLine) + "\nRALPH_STATUS: STUCK\n", StatusStuck, false},
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
	for content, want := range map[string]Status{
		"DONE\n": StatusDone, " continue ": StatusContinue, "Rotate": StatusRotate, "STUCK\r\n": StatusStuck,
		"task_complete\n": StatusDone, "": StatusNone, "NONE": StatusNone, "REJECTED": StatusNone,
		"DONE!": StatusNone, "RALPH_STATUS: DONE": StatusNone,
	} {
		got, ok := ParseStatusFile([]byte(content))
		if got != want || ok != (want != StatusNone) {
			t.Errorf("ParseStatusFile(%q) = %q, %v; want %q", content, got, ok, want)
		}
	}
}

// Only DONE and its alias TASK_COMPLETE count as DONE, exactly spelled.
func TestStatusDone(t *testing.T) {
	for s, want := range map[Status]bool{
		StatusDone: true, "TASK_COMPLETE": true,
		StatusNever: false, StatusNone: false, StatusContinue: false, StatusRotate: false,
		StatusStuck: false, StatusRejected: false, "done": false, " DONE": false,
	} {
		if got := s.Done(); got != want {
			t.Errorf("Status(%q).Done() = %v, want %v", s, got, want)
		}
	}
}
