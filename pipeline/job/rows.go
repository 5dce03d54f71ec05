package job

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
)

// PrintRows prints the status matrix as aligned columns. The table goes
// out in large writes: tabwriter writes every cell and its padding on its
// own, a write system call each on an unbuffered stdout (seven per spec).
func PrintRows(w io.Writer, rows []engine.Row) {
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
