package e2e

import (
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// RunReport reads the JSON report a run left in dir.
func RunReport(t *testing.T, dir string) *report.Report {
	t.Helper()
	r, err := readReport(filepath.Join(dir, ".ralph", "reports", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SpendingAgent streams Claude Code's stream-json: three API messages of
// 62,500 input tokens of claude-opus-5-5 each ($0.25 at $4 per million),
// the third 2 seconds after the second (a model's latency: a rotation
// stopped at the second is stopped before it), then its result ($0.75,
// CONTINUE). It notes each rotation in $PROMPTS.
const SpendingAgent = `cat > /dev/null
n=$(ls "$PROMPTS" | wc -l)
echo "$RALPH_SPEC $RALPH_ITERATION" > "$PROMPTS/$((n + 1)).txt"
for i in 1 2 3; do
  printf '{"type":"assistant","message":{"id":"msg_%s_%s","model":"claude-opus-5-5","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":62500,"output_tokens":0}}}\n' "$RALPH_ITERATION" "$i"
  [ $i = 2 ] && sleep 2
done
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"working\\nRALPH_STATUS: CONTINUE","total_cost_usd":0.75}\n'
`

// DayAgent streams 20 API messages of 12,500 input tokens of
// claude-opus-5-5 ($0.05 each at $4 per million), then its result. Each
// message is larger than a pipe's buffer (128 KiB of text), so the agent
// cannot write the next one while ralph-ci has not read this one (as
// when ralph-ci asks the ledger for more of the day): however fast it
// streams, it is never more than one message ahead of the meter.
const DayAgent = `cat > /dev/null
pad=$(head -c 131072 /dev/zero | tr '\0' x)
i=0
while [ $i -lt 20 ]; do
  i=$((i + 1))
  printf '{"type":"assistant","message":{"id":"msg_%s_%s","model":"claude-opus-5-5","content":[{"type":"text","text":"%s"}],"usage":{"input_tokens":12500,"output_tokens":0}}}\n' "$RALPH_ITERATION" "$i" "$pad"
done
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":20,"result":"working\\nRALPH_STATUS: CONTINUE","total_cost_usd":1.0}\n'
`
