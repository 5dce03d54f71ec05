package status

import "testing"

// TestDone: only DONE and its alias count as done, case-sensitively.
func TestDone(t *testing.T) {
	for s, want := range map[Status]bool{
		Done: true, TaskComplete: true, "done": false, None: false, Never: false,
		Rejected: false, Continue: false, Rotate: false, Stuck: false, "HUH": false,
	} {
		if got := s.Done(); got != want {
			t.Errorf("Status(%q).Done() = %v, want %v", s, got, want)
		}
	}
}

// TestWord: the four words an agent says, the alias, and nothing else.
func TestWord(t *testing.T) {
	for _, tc := range []struct {
		in       string
		st       Status
		task, ok bool
	}{
		{"DONE", Done, false, true},
		{"CONTINUE", Continue, false, true},
		{"ROTATE", Rotate, false, true},
		{"STUCK", Stuck, false, true},
		{"TASK_COMPLETE", Done, true, true},
		{"REJECTED", None, false, false},
		{"NONE", None, false, false},
		{"done", None, false, false},
		{"", None, false, false},
	} {
		st, task, ok := Word(tc.in)
		if st != tc.st || task != tc.task || ok != tc.ok {
			t.Errorf("Word(%q) = %q %v %v, want %q %v %v", tc.in, st, task, ok, tc.st, tc.task, tc.ok)
		}
	}
}
