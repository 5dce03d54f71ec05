package engine

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Row is one spec of the status matrix.
type Row struct {
	Path          string   `json:"path"`
	Counter       string   `json:"counter"` // "2/3"
	DoneCount     int      `json:"done_count"`
	LastStatus    string   `json:"last_status"`
	ModifiedFiles bool     `json:"modified_files"`
	ChangedFiles  []string `json:"changed_files,omitempty"`
	Stage         string   `json:"stage"`
	Tier          string   `json:"tier"`
	Rotations     int      `json:"rotations"`
	Verified      bool     `json:"verified"`
	Excluded      string   `json:"excluded,omitempty"`
	Reason        string   `json:"reason,omitempty"`
}

// Rows is the status matrix of specs, in discovery order.
func Rows(specs []plan.Spec, st state.State) []Row {
	rows := make([]Row, 0, len(specs))
	saved := st.ByPath()
	for _, sp := range specs {
		r := Row{Path: sp.Path, Tier: sp.Tier, Counter: counter.String(0), LastStatus: "-"}
		if len(sp.Stages) > 0 {
			r.Stage = sp.Stages[0].Name
		}
		if ss := saved[sp.Path]; ss != nil {
			r.DoneCount, r.Counter = ss.DoneCount, counter.String(ss.DoneCount)
			if ss.LastStatus != "" {
				r.LastStatus = string(ss.LastStatus)
			}
			r.ModifiedFiles, r.ChangedFiles = ss.ModifiedFiles, ss.ChangedFiles
			if ss.Stage != "" {
				r.Stage = ss.Stage
			}
			r.Rotations, r.Excluded, r.Reason = ss.Rotations, ss.Excluded, ss.Reason
			r.Verified = ss.Verified(sp.Hash)
		}
		rows = append(rows, r)
	}
	return rows
}

// PrintRows prints the status matrix as aligned columns. The table goes
// out in large writes: tabwriter writes every cell and its padding on its
// own, a write system call each on an unbuffered stdout (seven per spec).
func PrintRows(w io.Writer, rows []Row) {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tCOUNTER\tLAST STATUS\tCHANGED FILES\tSTAGE\tTIER\tNOTE")
	for _, r := range rows {
		note := r.Excluded
		if note == "" && r.Verified {
			note = "verified"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Path, r.Counter, r.LastStatus, yesNo(r.ModifiedFiles), r.Stage, r.Tier, strings.TrimSpace(note))
	}
	tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
